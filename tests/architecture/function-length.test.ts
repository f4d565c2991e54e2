import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measureFunctions } from './function-measures.ts';
import { productionFiles, REPOSITORY_ROOT } from './production-files.ts';

const MAX_OWN_LINES = 100;

/** Known exceptions, each with the work that removes it (none left: the Redis agent's `run` is now named steps). */
const KNOWN_EXCEPTIONS = new Set<string>([]);

/** Each function's own lines: a composition of small closures is not one long function. */
function functionLengths(path: string, text: string): { where: string; ownLines: number }[] {
  return measureFunctions(path, text).map(({ where, ownLines }) => ({ where, ownLines }));
}

describe('function length', () => {
  it('counts a function’s own lines without those of the closures inside it (the check itself)', () => {
    const body = Array.from({ length: 5 }, (_, line) => `  const v${line} = ${line};`).join('\n');
    const text = `function outer() {\n${body}\n  const inner = () => {\n${body}\n  };\n  return inner;\n}\n`;
    expect(functionLengths('x.ts', text)).toEqual([
      { where: 'x.ts: outer', ownLines: 8 },
      { where: 'x.ts: inner', ownLines: 7 },
    ]);
  });

  it(`no production function has more than ${MAX_OWN_LINES} lines of its own`, () => {
    const files = productionFiles();
    const lengths = files.flatMap((file) =>
      functionLengths(file, readFileSync(join(REPOSITORY_ROOT, file), 'utf8')),
    );
    expect(lengths.length).toBeGreaterThan(1000);
    const tooLong = lengths
      .filter((length) => length.ownLines > MAX_OWN_LINES && !KNOWN_EXCEPTIONS.has(length.where))
      .map((length) => `${length.where} (${length.ownLines} lines)`);
    expect(tooLong).toEqual([]);
  }, 60_000);

  it('lists no exception that is no longer needed', () => {
    const stillLong = new Set(
      productionFiles()
        .filter((file) => [...KNOWN_EXCEPTIONS].some((exception) => exception.startsWith(`${file}:`)))
        .flatMap((file) => functionLengths(file, readFileSync(join(REPOSITORY_ROOT, file), 'utf8')))
        .filter((length) => length.ownLines > MAX_OWN_LINES)
        .map((length) => length.where),
    );
    expect([...KNOWN_EXCEPTIONS].filter((exception) => !stillLong.has(exception))).toEqual([]);
  });
});
