import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measureFunctions } from './function-measures.ts';
import { productionFiles, REPOSITORY_ROOT } from './production-files.ts';

/**
 * The most lines one function may span, the closures inside it included. function-length.test.ts
 * counts a function's own lines, which a long factory passes by holding its state in a dozen
 * closures; past this span such a factory is a class or a few named functions in disguise.
 */
const MAX_SPAN = 200;

/** Parsing every production file takes seconds, more on a loaded machine. */
const PARSE_TIMEOUT_MS = 60_000;

describe('function span', () => {
  it('spans a function from its first line to its last, closures included (the check itself)', () => {
    const body = Array.from({ length: 5 }, (_, line) => `  const v${line} = ${line};`).join('\n');
    const text = `function outer() {\n${body}\n  const inner = () => {\n${body}\n  };\n  return inner;\n}\n`;
    expect(measureFunctions('x.ts', text).map(({ where, span }) => ({ where, span }))).toEqual([
      { where: 'x.ts: outer', span: 15 },
      { where: 'x.ts: inner', span: 7 },
    ]);
  });

  it(
    `no production function spans more than ${MAX_SPAN} lines`,
    () => {
      const spans = productionFiles().flatMap((file) =>
        measureFunctions(file, readFileSync(join(REPOSITORY_ROOT, file), 'utf8')),
      );
      expect(spans.length).toBeGreaterThan(1000);
      const tooLong = spans
        .filter((measure) => measure.span > MAX_SPAN)
        .map((measure) => `${measure.where} (${measure.span} lines)`);
      expect(tooLong).toEqual([]);
    },
    PARSE_TIMEOUT_MS,
  );
});
