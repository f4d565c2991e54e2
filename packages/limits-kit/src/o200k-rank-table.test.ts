import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { o200kRanksPath } from './load-o200k-tokenizer.ts';
import { parseRankTable } from './o200k-rank-table.ts';

const encode = (text: string) => new TextEncoder().encode(text);
const rankOfBytes = (table: ReturnType<typeof parseRankTable>, bytes: Uint8Array) =>
  table.rankOf(bytes, 0, bytes.length);

describe('parseRankTable', () => {
  it('finds every token of o200k_base at its rank, decoded with Node’s own base64, in about 4 MB', () => {
    const file = readFileSync(o200kRanksPath());
    const table = parseRankTable(file);
    const lines = file.toString('latin1').split('\n').filter(Boolean);
    expect(table.size).toBe(lines.length);
    const wrong = lines.flatMap((line) => {
      const [token, rank] = line.split(' ') as [string, string];
      const found = rankOfBytes(table, Buffer.from(token, 'base64'));
      return found === Number(rank) ? [] : [{ line, found }];
    });
    expect(wrong).toEqual([]);
    const longest = lines.reduce(
      (most, line) => Math.max(most, Buffer.from(line.split(' ')[0] as string, 'base64').length),
      0,
    );
    expect(table.longestToken).toBe(longest);
    expect(table.byteLength).toBeLessThan(5 * 1024 * 1024);
  });

  it('answers -1 for bytes that are no token, also inside a larger buffer', () => {
    const table = parseRankTable(encode('YQ== 0\nYg== 1\nYWI= 2\n'));
    expect(rankOfBytes(table, encode('ab'))).toBe(2);
    expect(rankOfBytes(table, encode('ba'))).toBe(-1);
    expect(rankOfBytes(table, encode('abc'))).toBe(-1);
    expect(rankOfBytes(table, encode(''))).toBe(-1);
    const buffer = encode('xxabyy');
    expect(table.rankOf(buffer, 2, 4)).toBe(2);
    expect(table.rankOf(buffer, 2, 3)).toBe(0);
    expect(table.rankOf(buffer, 1, 3)).toBe(-1);
  });

  it('accepts ranks out of order, with gaps, and Windows line endings', () => {
    const table = parseRankTable(encode('YWI= 5\r\nYQ== 0\r\n\r\nYg== 2'));
    expect(table.size).toBe(6);
    expect([
      rankOfBytes(table, encode('a')),
      rankOfBytes(table, encode('b')),
      rankOfBytes(table, encode('ab')),
    ]).toEqual([0, 2, 5]);
  });

  it('refuses a malformed file with the line and what was expected', () => {
    expect(() => parseRankTable(encode('IQ== 0\nIg==\n'))).toThrow(
      /Invalid tiktoken line 2: "Ig==" \(expected "<base64 token> <rank>"\)/,
    );
    expect(() => parseRankTable(encode('I*== 0\n'))).toThrow(/Invalid tiktoken line 1/);
    expect(() => parseRankTable(encode('IQ== x1\n'))).toThrow(/Invalid tiktoken line 1/);
    expect(() => parseRankTable(encode(' 3\n'))).toThrow(/Invalid tiktoken line 1/);
    expect(() => parseRankTable(encode('IQ== 0\nIg== 0\n'))).toThrow(/rank 0 appears twice/);
    expect(() => parseRankTable(encode('IQ== 0\nIQ== 1\n'))).toThrow(/ranks 0 and 1 are the same bytes/);
  });
});
