import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { productionFiles, REPOSITORY_ROOT } from './production-files.ts';

/**
 * Memory's vocabulary is declared once: the scope, category and source lists in protocol's memory
 * folder, the fact line, headers and orderings in the memory package (docs/architecture.md).
 * Everyone else imports them; a second copy is what this test refuses.
 */
const HOMES = ['packages/protocol/src/memory/', 'packages/memory/src/'];

const CATEGORIES = ['preference', 'fact', 'pattern', 'event'];
const SOURCES = ['user_explicit', 'inferred'];
const SCOPES = ['user', 'global', 'session'];

/** Names whose declaration is the vocabulary itself (orderings, priors, fact lines, headers). */
const DECLARED_NAMES =
  /\b(?:const|let|var|function|class|type|interface)\s+(CATEGORY_ORDER|SOURCE_ORDER|STANDING_PRIOR|MEMORY_PRIOR|STANDING_KINDS|standingOrder|standingScore|compareStanding|compareRanked|factLine|factAge|formatAge|\w*FACTS_HEADER|\w*CONTEXT_HEADER)\b/g;

/** Lists and unions of quoted words (`['a', 'b']`, `'a' | 'b'`, `z.enum([...])`). */
const QUOTED_RUN = /(?:(['"])[a-z_]+\1\s*[,|]\s*){1,}(['"])[a-z_]+\2/g;

/** What in `source` re-declares memory's vocabulary, one line per finding. */
function vocabularyIn(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(DECLARED_NAMES)) found.push(`declares ${match[1]}`);
  for (const match of source.matchAll(QUOTED_RUN)) {
    const words = new Set(match[0].match(/[a-z_]+/g));
    const count = (list: string[]) => list.filter((word) => words.has(word)).length;
    if (count(CATEGORIES) >= 2) found.push(`lists categories: ${match[0]}`);
    if (count(SOURCES) === 2) found.push(`lists sources: ${match[0]}`);
    if (words.has('global') && count(SCOPES) >= 2) found.push(`lists scopes: ${match[0]}`);
  }
  if (/['"`]## Known Facts/.test(source)) found.push('writes a Known Facts header');
  if (/['"`]you told me['"`]/.test(source)) found.push('writes a fact line');
  return found;
}

describe('memory vocabulary is declared once', () => {
  it('finds each kind of copy (the check itself)', () => {
    expect(vocabularyIn("type C = 'preference' | 'fact' | 'pattern' | 'event';")).toEqual([
      "lists categories: 'preference' | 'fact' | 'pattern' | 'event'",
    ]);
    expect(vocabularyIn("z.enum(['user_explicit', 'inferred'])")).toEqual([
      "lists sources: 'user_explicit', 'inferred'",
    ]);
    expect(vocabularyIn("const s = ['user', 'global', 'session'];")).toEqual([
      "lists scopes: 'user', 'global', 'session'",
    ]);
    expect(vocabularyIn('export const CATEGORY_ORDER = MEMORY_CATEGORIES;')).toEqual([
      'declares CATEGORY_ORDER',
    ]);
    expect(vocabularyIn('function standingOrder(now: number) {}')).toEqual(['declares standingOrder']);
    expect(vocabularyIn("const header = '## Known Facts (from memory)';")).toEqual([
      'writes a Known Facts header',
    ]);
    expect(vocabularyIn("const source = explicit ? 'you told me' : 'inferred';")).toEqual([
      'writes a fact line',
    ]);
    // Using the vocabulary is fine: one category, a role union, an import.
    expect(vocabularyIn("if (memory.category === 'preference') role = 'user' | 'assistant';")).toEqual([]);
    expect(vocabularyIn("import { MEMORY_CATEGORIES } from '@nexus/protocol';")).toEqual([]);
  });

  it('no production file outside protocol/src/memory and packages/memory declares it again', () => {
    const files = productionFiles().filter((file) => !HOMES.some((home) => file.startsWith(home)));
    expect(files.length).toBeGreaterThan(300);
    const copies = files.flatMap((file) =>
      vocabularyIn(readFileSync(join(REPOSITORY_ROOT, file), 'utf8')).map((finding) => `${file}: ${finding}`),
    );
    expect(copies).toEqual([]);
  });
});
