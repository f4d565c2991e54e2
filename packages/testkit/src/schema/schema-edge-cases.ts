import type { z } from 'zod';

/**
 * Values at and just past every limit a zod object schema declares, each a copy of `valid` with
 * one field changed: strings one character under and over their length limits (and padded with
 * spaces, for a schema that trims), numbers at and past their bounds (and a fraction where an
 * integer is wanted), arrays one element past their length, every enum option and one more, each
 * field removed, `null` and a value of the wrong type. The limits are read from the schema itself,
 * so a hand-written check that mirrors a schema (a fast path that skips zod) is tested against the
 * schema as it is today: tighten a limit in the schema and the mirror's old limit shows up here.
 */
export function schemaEdgeCases(
  schema: z.ZodObject,
  valid: Record<string, unknown>,
): Array<[string, unknown]> {
  const cases: Array<[string, unknown]> = [];
  collect(schema, valid, [], cases, valid);
  return cases;
}

interface ZodInternals {
  _zod: {
    def: { type: string; innerType?: unknown; checks?: Array<{ _zod: { def: Record<string, unknown> } }> };
  };
}

function collect(
  schema: unknown,
  value: unknown,
  path: string[],
  cases: Array<[string, unknown]>,
  root: Record<string, unknown>,
): void {
  const def = (schema as ZodInternals)._zod.def;
  const at = (label: string, replacement: unknown) =>
    cases.push([`${path.join('.')}: ${label}`, replaced(root, path, replacement)]);
  if (def.type === 'optional' || def.type === 'default') {
    if (path.length > 0) at('absent', undefined);
    collect(def.innerType, value, path, cases, root);
    return;
  }
  if (path.length > 0) {
    at('absent', undefined);
    at('null', null);
  }
  switch (def.type) {
    case 'object': {
      const shape = (schema as z.ZodObject).shape;
      const object = (value ?? {}) as Record<string, unknown>;
      if (path.length > 0) at('not an object', 'text');
      for (const [key, field] of Object.entries(shape))
        collect(field, object[key], [...path, key], cases, root);
      return;
    }
    case 'string': {
      const string = schema as z.ZodString;
      at('a number', 42);
      if (typeof value === 'string') at('padded with spaces', ` ${value} `);
      for (const length of lengthsAround(string.minLength, string.maxLength))
        at(`${length} characters`, 'x'.repeat(length));
      return;
    }
    case 'number': {
      const number = schema as z.ZodNumber;
      at('text', '1');
      for (const bound of [number.minValue, number.maxValue]) {
        if (bound === null || !Number.isFinite(bound)) continue;
        for (const near of [bound - 1, bound, bound + 1]) at(String(near), near);
      }
      if (number.isInt) at('a fraction', (number.minValue ?? 0) + 0.5);
      return;
    }
    case 'array': {
      at('not an array', 'text');
      const element = Array.isArray(value) ? value[0] : undefined;
      const max = lengthCheck(def.checks, 'max_length', 'maximum');
      if (max !== undefined && element !== undefined) {
        for (const length of [max, max + 1])
          at(
            `${length} elements`,
            Array.from({ length }, () => element),
          );
      }
      return;
    }
    case 'enum': {
      for (const option of (schema as z.ZodEnum).options) at(`option ${String(option)}`, option);
      at('not an option', 'not-an-option');
      return;
    }
    case 'boolean':
      at('text', 'true');
      return;
    default:
      at('a number', 42);
  }
}

function lengthsAround(min: number | null, max: number | null): number[] {
  const lengths = new Set<number>();
  if (min !== null && min > 0) for (const length of [min - 1, min]) lengths.add(length);
  if (max !== null && Number.isFinite(max)) for (const length of [max, max + 1]) lengths.add(length);
  return [...lengths];
}

function lengthCheck(
  checks: Array<{ _zod: { def: Record<string, unknown> } }> | undefined,
  kind: string,
  field: string,
): number | undefined {
  const check = checks?.find((candidate) => candidate._zod.def.check === kind);
  const limit = check?._zod.def[field];
  return typeof limit === 'number' ? limit : undefined;
}

/** A deep copy of `root` with the value at `path` replaced (removed when `replacement` is undefined). */
function replaced(root: Record<string, unknown>, path: string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy: Record<string, unknown> = { ...root };
  const [key, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) {
    if (replacement === undefined) delete copy[key];
    else copy[key] = replacement;
    return copy;
  }
  const inner = root[key];
  copy[key] = replaced(
    typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : {},
    rest,
    replacement,
  );
  return copy;
}
