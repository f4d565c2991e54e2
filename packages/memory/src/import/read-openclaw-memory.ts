import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryCategory } from '../model/memory.ts';
import { contentProblem, importedMetadata, type MemoryImport } from './memory-import-item.ts';

const DAILY_FILE = /^(\d{4})-(\d{2})-(\d{2})(?:-[\w.-]+)?\.md$/u;

/**
 * OpenClaw's Markdown memory (its workspace, `~/.openclaw/workspace`): `MEMORY.md` (curated
 * long-term facts), `USER.md` (the person's standing preferences) and the daily notes
 * `memory/YYYY-MM-DD.md` (or `YYYY-MM-DD-<slug>.md`). Each bullet, numbered item or paragraph
 * becomes one memory of `userId`; a daily note is dated by its file name (midnight UTC), the
 * other files by their modification time. `path` is the workspace or its `memory/` folder.
 */
export async function readOpenClawMemory(path: string, options: { userId: string }): Promise<MemoryImport> {
  const result: MemoryImport = { items: [], skipped: [] };
  const files: Array<{ file: string; label: string; date?: number; category: MemoryCategory }> = [];
  for (const [name, category] of [
    ['MEMORY.md', 'fact'],
    ['USER.md', 'preference'],
  ] as const) {
    if (await isFile(join(path, name))) files.push({ file: join(path, name), label: name, category });
  }
  const dailyDir = (await isDirectory(join(path, 'memory'))) ? join(path, 'memory') : path;
  const prefix = dailyDir === path ? '' : 'memory/';
  for (const name of (await readdir(dailyDir)).sort()) {
    const match = DAILY_FILE.exec(name);
    if (!match) continue;
    const date = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
    if (Number.isNaN(date)) continue;
    files.push({ file: join(dailyDir, name), label: `${prefix}${name}`, date, category: 'event' });
  }
  if (files.length === 0) {
    result.skipped.push({ where: path, reason: 'no MEMORY.md, USER.md or memory/YYYY-MM-DD.md here' });
    return result;
  }
  for (const { file, label, date, category } of files) {
    const time = date ?? Math.floor((await stat(file)).mtimeMs);
    const text = await readFile(file, 'utf8');
    for (const block of markdownFacts(text)) {
      const where = `${label}:${block.line}`;
      const problem = contentProblem(block.text);
      if (problem) {
        result.skipped.push({ where, reason: problem });
        continue;
      }
      result.items.push({
        userId: options.userId,
        content: block.text,
        category: block.section && /prefer/iu.test(block.section) ? 'preference' : category,
        // OpenClaw's agent wrote these notes; nothing says the person stated them in these words.
        source: 'inferred',
        createdAt: time,
        updatedAt: time,
        metadata: importedMetadata({
          imported_from: 'openclaw',
          openclaw_file: label,
          openclaw_line: block.line,
          openclaw_section: block.section,
        }),
      });
    }
  }
  return result;
}

/** Bullets, numbered items and paragraphs, with the heading above them; front matter and code skipped. */
export function markdownFacts(text: string): Array<{ text: string; line: number; section?: string }> {
  const facts: Array<{ text: string; line: number; section?: string }> = [];
  let section: string | undefined;
  let current: { lines: string[]; line: number } | undefined;
  let inFence = false;
  let inFrontMatter = false;
  const flush = () => {
    if (current) {
      const joined = current.lines.join(' ').replace(/\s+/gu, ' ').trim();
      if (joined) facts.push({ text: joined, line: current.line, ...(section ? { section } : {}) });
    }
    current = undefined;
  };
  text.split(/\r?\n/u).forEach((raw, index) => {
    const line = raw.trimEnd();
    if (index === 0 && line === '---') {
      inFrontMatter = true;
      return;
    }
    if (inFrontMatter) {
      if (line === '---') inFrontMatter = false;
      return;
    }
    if (/^\s*(```|~~~)/u.test(line)) {
      flush();
      inFence = !inFence;
      return;
    }
    if (inFence) return;
    const heading = /^#{1,6}\s+(.*)$/u.exec(line);
    if (heading) {
      flush();
      section = heading[1]?.trim();
      return;
    }
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*)$/u.exec(line);
    if (item) {
      flush();
      current = { lines: [item[1] ?? ''], line: index + 1 };
      return;
    }
    if (line.trim() === '' || /^\s*(---|\*\*\*|___)\s*$/u.test(line)) {
      flush();
      return;
    }
    // A continuation of the bullet or paragraph above, or the start of a paragraph.
    if (current) current.lines.push(line.trim());
    else current = { lines: [line.trim()], line: index + 1 };
  });
  flush();
  return facts;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
