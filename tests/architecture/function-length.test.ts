import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { productionFiles, REPOSITORY_ROOT } from './production-files.ts';

const MAX_OWN_LINES = 100;

/**
 * Known exceptions, each with the work that removes it. The Redis agent's `run` is being reshaped
 * by the Redis-faults work of issue 27, which owns packages/agent-redis meanwhile.
 */
const KNOWN_EXCEPTIONS = new Set(['packages/agent-redis/src/remote-agent.ts: run']);

interface FunctionLength {
  where: string;
  ownLines: number;
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return `<anonymous at line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}>`;
}

/**
 * Every function's own lines: the lines it spans minus those of the functions nested directly in
 * it (each counted on its own), so a composition of small closures is not one long function.
 */
function functionLengths(path: string, text: string): FunctionLength[] {
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const span = (node: ts.Node) => lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
  const lengths: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node)) {
      let ownLines = span(node);
      const subtractNested = (child: ts.Node): void => {
        if (isFunction(child)) ownLines -= span(child);
        else ts.forEachChild(child, subtractNested);
      };
      ts.forEachChild(node, subtractNested);
      lengths.push({ where: `${path}: ${nameOf(node, source)}`, ownLines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lengths;
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
  });

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
