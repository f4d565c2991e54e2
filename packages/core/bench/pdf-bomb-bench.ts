// `pnpm bench:pdf-bomb`: the gateway's own peak memory while it reads a crafted PDF whose content
// stream goes through two filters ([/FlateDecode /FlateDecode] or [/ASCIIHexDecode /FlateDecode])
// and decodes to gigabytes of zeros. Each case runs in a fresh process, so the peak resident size
// (getrusage maxRSS) belongs to that one file; the figure printed is what the reader added to it.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type BombFilterChain, makeFilterChainBombPdf, makePdf } from '@nexus/testkit/media';
import { extractPdfText } from '../src/media/extract-pdf-text.ts';

const GIB = 1024 * 1024 * 1024;
const CASES: Record<string, () => Promise<Uint8Array>> = {
  'plain one-page PDF': async () => makePdf(['The invoice total is 42 euros.']),
  'flate-flate, 2 GiB of zeros': () => makeFilterChainBombPdf(2 * GIB, 'flate-flate'),
  'hex-flate, 1 GiB of zeros': () => makeFilterChainBombPdf(GIB, 'hex-flate' satisfies BombFilterChain),
};

const megabytes = (kilobytes: number) => Math.round(kilobytes / 1024);

async function runCase(name: string): Promise<void> {
  const make = CASES[name];
  if (!make) throw new Error(`unknown case ${name}`);
  const bytes = await make();
  const before = process.resourceUsage().maxRSS;
  const started = performance.now();
  let outcome: string;
  try {
    const pdf = await extractPdfText({
      bytes,
      personId: 'bench',
      maxPages: 50,
      maxChars: 50_000,
      timeoutMs: 60_000,
    });
    outcome = `read: ${pdf.text.trim().length} characters`;
  } catch (error) {
    const failure = error as { code?: string; message?: string };
    outcome = `refused: ${failure.code} (${failure.message})`;
  }
  const after = process.resourceUsage().maxRSS;
  process.stdout.write(
    `${JSON.stringify({
      name,
      fileBytes: bytes.byteLength,
      parentPeakBeforeMb: megabytes(before),
      parentPeakAfterMb: megabytes(after),
      ms: Math.round(performance.now() - started),
      outcome,
    })}\n`,
  );
}

const caseName = process.argv[2];
if (caseName) {
  await runCase(caseName);
} else {
  console.log(
    `load average: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  for (const name of Object.keys(CASES)) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), name], { encoding: 'utf8' });
    const line = child.stdout.trim().split('\n').at(-1) ?? '';
    if (!line.startsWith('{')) {
      console.log(
        `${name}: the measuring process died (status ${child.status}, ${child.signal ?? 'no signal'})`,
      );
      console.log(child.stderr.slice(-400));
      continue;
    }
    const result = JSON.parse(line) as Record<string, string | number>;
    console.log(
      `${name} (${result.fileBytes} bytes): gateway peak RSS ${result.parentPeakBeforeMb} MB -> ${result.parentPeakAfterMb} MB, ${result.ms} ms, ${result.outcome}`,
    );
  }
  console.log(
    `load average: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
}
