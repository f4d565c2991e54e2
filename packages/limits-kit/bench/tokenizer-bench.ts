/**
 * pnpm bench:tokenizer — Nexus's o200k counter against gpt-tokenizer's own o200k_base encoding
 * (the reference the exactness test compares with), each in a fresh process:
 * - memory: RSS and V8 heap of a bare process before and after loading (after a collection);
 * - speed: tokens/s counting a long mixed text in message-sized chunks (after one warm-up round);
 * - long pieces: time to count runs with no space (one piece each) as they double in length,
 *   to show how the merge grows (gpt-tokenizer's only up to 32k: it is quadratic).
 * The last line is JSON.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadO200kTokenizer } from '../src/load-o200k-tokenizer.ts';
import { randomText, seededRandom, WRITTEN_SAMPLES } from '../src/testing/o200k-corpus.ts';

type Variant = 'nexus' | 'gpt-tokenizer';
const VARIANTS: readonly Variant[] = ['nexus', 'gpt-tokenizer'];
const CHUNK_CHARACTERS = 2_000;
const ROUNDS = 5;
const RUN_LENGTHS = [8_000, 16_000, 32_000, 64_000, 128_000, 1_000_000];
const REFERENCE_RUN_LIMIT = 32_000;
const MB = 1024 * 1024;

const round1 = (value: number) => Math.round(value * 10) / 10;

function load(variant: Variant): (text: string) => number {
  if (variant === 'nexus') return loadO200kTokenizer().countTokens;
  const require = createRequire(import.meta.url);
  const encoding = require('gpt-tokenizer/encoding/o200k_base') as {
    countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
    setMergeCacheSize(size: number): void;
  };
  // Nexus ran it with a 5,000-word merge cache; the same here.
  encoding.setMergeCacheSize(5_000);
  const plain = { disallowedSpecial: new Set<string>() };
  return (text) => encoding.countTokens(text, plain);
}

/** About 1 MB of chat-like text: the written samples and seeded random strings, interleaved. */
function longText(): string {
  const random = seededRandom(2024);
  const parts: string[] = [];
  let length = 0;
  while (length < 1_000_000) {
    const part =
      random() < 0.7
        ? (WRITTEN_SAMPLES[Math.floor(random() * WRITTEN_SAMPLES.length)] as string)
        : randomText(random);
    parts.push(part);
    length += part.length + 1;
  }
  return parts.join('\n');
}

function runChild(variant: Variant): Record<string, number | string> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage();
  const started = performance.now();
  const count = load(variant);
  count('warm up');
  const loadMs = performance.now() - started;
  gc();
  const loaded = process.memoryUsage();

  const text = longText();
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += CHUNK_CHARACTERS)
    chunks.push(text.slice(at, at + CHUNK_CHARACTERS));
  let tokens = 0;
  const rates: number[] = [];
  for (let round = 0; round <= ROUNDS; round += 1) {
    const roundStarted = performance.now();
    tokens = 0;
    for (const chunk of chunks) tokens += count(chunk);
    // Round 0 warms the JIT (and gpt-tokenizer's merge cache) and is not counted.
    if (round > 0) rates.push(tokens / ((performance.now() - roundStarted) / 1000));
  }
  rates.sort((a, b) => a - b);

  const runs: Record<string, number | string> = {};
  const random = seededRandom(5);
  for (const length of RUN_LENGTHS) {
    if (variant === 'gpt-tokenizer' && length > REFERENCE_RUN_LIMIT) continue;
    let letters = '';
    for (let at = 0; at < length; at += 1) letters += 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)];
    for (const [name, run] of [
      ['x', 'x'.repeat(length)],
      ['letters', letters],
    ] as const) {
      const runStarted = performance.now();
      count(run);
      runs[`${name}_${length}_ms`] = round1(performance.now() - runStarted);
    }
  }
  return {
    variant,
    load_ms: round1(loadMs),
    rss_before_mb: round1(before.rss / MB),
    rss_loaded_mb: round1(loaded.rss / MB),
    heap_used_before_mb: round1(before.heapUsed / MB),
    heap_used_loaded_mb: round1(loaded.heapUsed / MB),
    array_buffers_loaded_mb: round1(loaded.arrayBuffers / MB),
    text_tokens: tokens,
    tokens_per_s_median: Math.round(rates[Math.floor(rates.length / 2)] as number),
    ...runs,
  };
}

const child = process.argv.indexOf('--child');
if (child !== -1) {
  console.log(JSON.stringify(runChild(process.argv[child + 1] as Variant)));
} else {
  const results = VARIANTS.map(
    (variant) =>
      JSON.parse(
        execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', variant], {
          encoding: 'utf8',
        }).trim(),
      ) as Record<string, number | string>,
  );
  const keys = [...new Set(results.flatMap((result) => Object.keys(result)))].filter(
    (key) => key !== 'variant',
  );
  console.log(`${'figure'.padEnd(30)}${VARIANTS.map((variant) => variant.padStart(16)).join('')}`);
  for (const key of keys)
    console.log(
      `${key.padEnd(30)}${results.map((result) => String(result[key] ?? '—').padStart(16)).join('')}`,
    );
  console.log(JSON.stringify({ load_average_1m: round1(loadavg()[0] as number), results }));
}
