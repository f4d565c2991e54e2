// Throughput of the hot paths an adapter runs on every streamed edit: split + render.
// Run: node packages/channel-kit/bench/channel-kit-bench.ts
import { renderDiscordMarkdown, renderTelegramHtml, renderWhatsAppText, splitMessage } from '../src/index.ts';
import { randomMarkdown, seededRandom } from '../src/testing/random-markdown.ts';

function markdownOfLength(length: number, seed: number): string {
  const random = seededRandom(seed);
  let text = '';
  while (text.length < length) text += `${randomMarkdown(random)}\n\n`;
  return text.slice(0, length);
}

function timeMs(label: string, iterations: number, run: () => unknown): void {
  for (let index = 0; index < Math.min(5, iterations); index += 1) run();
  const samples: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? Number.NaN;
  const p95 = samples[Math.min(samples.length - 1, Math.ceil(samples.length * 0.95) - 1)] ?? Number.NaN;
  process.stdout.write(`${label.padEnd(52)} median ${median.toFixed(2)} ms  p95 ${p95.toFixed(2)} ms\n`);
}

const telegramMeasure = (chunk: string) => renderTelegramHtml(chunk).length;
for (const length of [2_000, 8_000, 32_000]) {
  const text = markdownOfLength(length, length);
  timeMs(`splitMessage ${length} chars, max 4096 (UTF-16)`, 50, () =>
    splitMessage(text, { maxLength: 4096 }),
  );
  timeMs(`splitMessage ${length} chars, max 4096 (Telegram HTML)`, 20, () =>
    splitMessage(text, { maxLength: 4096, measure: telegramMeasure }),
  );
  timeMs(`splitMessage ${length} chars, max 2000 (Discord)`, 50, () =>
    splitMessage(text, { maxLength: 2000 }),
  );
  timeMs(`renderTelegramHtml ${length} chars`, 50, () => renderTelegramHtml(text));
  timeMs(`renderDiscordMarkdown ${length} chars`, 50, () => renderDiscordMarkdown(text));
  timeMs(`renderWhatsAppText ${length} chars`, 50, () => renderWhatsAppText(text));
}
const hostile = `${'_a '.repeat(10_000)}${'['.repeat(10_000)}${'`` `'.repeat(3_000)}${'*a '.repeat(5_000)}`;
timeMs(`renderTelegramHtml hostile ${hostile.length} chars`, 10, () => renderTelegramHtml(hostile));
timeMs(`splitMessage hostile ${hostile.length} chars`, 10, () => splitMessage(hostile, { maxLength: 4096 }));
