import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from './production-files.ts';

/** Where the code and its tests live; comments in every such file are checked. */
const SOURCE_FOLDERS = ['packages', 'apps', 'tests', 'scripts', 'bench'];

/** Paths of other projects that comments name on purpose, each with its project. */
const OTHER_PROJECTS_PATHS = new Set([
  // gpt-tokenizer's source, where the pre-tokenizer's pattern comes from.
  'src/encodingParams/constants.ts',
]);

/** Every `.ts`, `.tsx`, `.mts` and `.mjs` file under `folder`, without installed or built code. */
function sourceFilesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(REPOSITORY_ROOT, folder), { withFileTypes: true })) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory() && !['node_modules', 'dist', '.data'].includes(entry.name))
      found.push(...sourceFilesUnder(path));
    else if (entry.isFile() && /\.(ts|tsx|mts|mjs)$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** The text of every comment in a file, found through the compiler's scanner (never inside strings). */
function commentsOf(path: string, text: string): string[] {
  const kind = path.endsWith('.tsx')
    ? ts.ScriptKind.TSX
    : path.endsWith('.mjs')
      ? ts.ScriptKind.JS
      : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) seen.set(range.pos, text.slice(range.pos, range.end));
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen.values()];
}

/**
 * Paths a comment names: words with a slash whose last part has a file extension, or that start
 * at a top folder of the repository. URLs, package names (`@scope/name`), routes (`/api/…`) and
 * placeholders (`<dataDir>/…`, globs) are not repository paths.
 */
function pathsIn(comment: string): string[] {
  const found: string[] = [];
  for (const match of comment.matchAll(/(?<![\w:/.@<>*$-])((?:\.{1,2}\/)?[\w.-]+(?:\/[\w.{},-]+)+\/?)/g)) {
    const path = match[1]!.replace(/[.,]+$/, '');
    if (/[<>*]|YYYY/.test(path) || comment[(match.index ?? 0) + match[0].length] === '<') continue;
    const last = path.replace(/\/$/, '').split('/').at(-1)!;
    const isFile = /\.[a-z]{1,5}$/.test(last) && /[a-z]/i.test(last.replace(/\.[a-z]+$/, ''));
    const fromTop = /^(packages|apps|tests|scripts|docs|bench|\.ci)\//.test(path);
    if (isFile || fromTop) found.push(...expandBraces(path));
  }
  return found;
}

/** `edits-{telegram,discord}.ts` → both names. */
function expandBraces(path: string): string[] {
  const brace = /\{([^{}]*)\}/.exec(path);
  if (!brace) return [path];
  return brace[1]!
    .split(',')
    .flatMap((choice) =>
      expandBraces(path.slice(0, brace.index) + choice + path.slice(brace.index + brace[0].length)),
    );
}

/** The commenting file's folder and every folder above it, up to the repository root. */
function foldersAbove(file: string): string[] {
  const folders: string[] = [];
  for (let folder = dirname(join(REPOSITORY_ROOT, file)); ; folder = dirname(folder)) {
    folders.push(folder);
    if (relative(REPOSITORY_ROOT, folder) === '') return folders;
  }
}

/**
 * A path is read from the repository root or from the commenting file's folder or any above it.
 * One whose first folder exists nowhere there names something outside the repository (a
 * platform's file path, say) and is not checked.
 */
function missingFromRepository(path: string, file: string): boolean {
  if (OTHER_PROJECTS_PATHS.has(path)) return false;
  const folders = foldersAbove(file);
  if (folders.some((folder) => existsSync(join(folder, path)))) return false;
  const first = path.replace(/^(\.\.?\/)+/, '').split('/')[0]!;
  return path.startsWith('.') || folders.some((folder) => existsSync(join(folder, first)));
}

describe('paths named in comments', () => {
  it('finds the paths a comment names, and only those (the check itself)', () => {
    const comment =
      '// See docs/architecture.md and tracing/start-tracing.ts (apps/gateway/src/{cli,http}/); not ' +
      'https://example.org/a/b.html, @ai-sdk/openai, /api/memory, <dataDir>/web-token, text/plain or src/*.ts.';
    expect(pathsIn(comment)).toEqual([
      'docs/architecture.md',
      'tracing/start-tracing.ts',
      'apps/gateway/src/cli/',
      'apps/gateway/src/http/',
    ]);
  });

  it('reports a repository path that does not exist, from the root or from the file (the check itself)', () => {
    const file = 'packages/core/src/memory/memory-subject.ts';
    expect(missingFromRepository('tests/architecture/category-order.test.ts', file)).toBe(true);
    expect(missingFromRepository('memory/no-such-file.ts', file)).toBe(true);
    expect(missingFromRepository('docs/architecture.md', file)).toBe(false);
    expect(missingFromRepository('turn/run-turn.ts', file)).toBe(false);
    // Telegram's own path of a file: its first folder is nowhere in the repository.
    expect(missingFromRepository('photos/file_3.jpg', file)).toBe(false);
  });

  it('every repository path named in a comment of a production or test file exists', () => {
    const files = SOURCE_FOLDERS.flatMap(sourceFilesUnder);
    expect(files.length).toBeGreaterThan(500);
    const missing: string[] = [];
    let named = 0;
    for (const file of files) {
      for (const comment of commentsOf(file, readFileSync(join(REPOSITORY_ROOT, file), 'utf8'))) {
        for (const path of pathsIn(comment)) {
          named += 1;
          if (missingFromRepository(path, file)) missing.push(`${file}: ${path}`);
        }
      }
    }
    expect(named).toBeGreaterThan(40);
    expect(missing).toEqual([]);
  });
});
