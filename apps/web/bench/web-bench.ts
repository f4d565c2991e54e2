// pnpm bench:web [--runs 5]
// Builds this checkout's web client, serves it from a real gateway (scripted model, no network)
// and prints one JSON line on stdout (progress and details go to stderr):
//   lighthouse_performance / _accessibility / _best_practices  Lighthouse (npm) against /usr/bin/chromium
//   axe_serious    serious + critical axe-core violations (affected elements) on the chat, the
//                  conversation list, the header menu and every panel, in light and dark
//   js_gzip_kb     every JavaScript response of a first load and the service worker's script,
//                  gzip-compressed here (level 6; the gateway itself sends them uncompressed)
//   first_load_ms  median, navigation start until the chat is usable (socket open), fresh profile
//   markdown_100kb_cpu_ms  opening a conversation whose reply is 100 KB of Markdown: main-thread CPU
//                  time (Chromium trace) from the click until the frame after the reply's end is
//                  drawn (target: under 50 ms); median of 3. `_wall_ms`: the same tasks' wall time
//   markdown_100kb_longest_task_ms  the longest main-thread task until the whole reply is drawn
//   markdown_100kb_whole_cpu_ms  main-thread CPU time until every block of it is drawn
//   stream_100kb_last_chunk_cpu_ms  streaming it: main-thread CPU time from the last chunk's
//                  arrival until the frame after it; `stream_100kb_end_cpu_ms` the same for `reply.end`
//   lex_100kb_cpu_ms   CPU time (not wall time, so less skewed by a busy machine) of lexing the
//                  100 KB reply once in Node, median of 5; `lex_100kb_blocks_cpu_ms` its block pass
//                  alone (what opening it costs before the blocks shown first get their inlines);
//                  `lex_100kb_nested_emphasis_cpu_ms` 100 KB of hostile `*_a ` (one paragraph)
//   stream_100kb_cpu_ms  CPU time of lexing it as it streams in 1 KB chunks (incremental)
// It also writes screenshots of the main states (light and dark, laptop and phone) to
// the git-ignored `screenshots` folder beside this file, to be looked at. `--screenshots-only` skips the rest;
// `--markdown-only` prints only the 100 KB reply's figures.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { loadConfig, startGateway } from '@nexus/gateway';
import { freePort } from '@nexus/testkit';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import axe from 'axe-core';
import lighthouse from 'lighthouse';
import { chromium, type Page } from 'playwright-core';
import { build } from 'vite';
// The web app does not depend on memory; the bench opens the gateway's store to seed the Memory panel.
import { createSqliteMemoryStore, MemoryService } from '../../../packages/memory/src/index.ts';
import { IncrementalMarkdown } from '../src/markdown/incremental-markdown.ts';
import { lexBlocks, lexMarkdown } from '../src/markdown/lex-markdown.ts';
import { longReplyChunks, openLongReply } from '../src/testing/long-reply.ts';
import { type MainThreadWork, traceMainThread } from './main-thread-trace.ts';
import { takeScreenshots } from './take-screenshots.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update'];
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'screenshots-only': { type: 'boolean', default: false },
    'markdown-only': { type: 'boolean', default: false },
  },
});
const runs = Math.max(1, Number(values.runs));
const log = (line: string) => process.stderr.write(`${line}\n`);

const webRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const workDir = await mkdtemp(join(tmpdir(), 'nexus-web-bench-'));
const distDir = join(workDir, 'dist');
await build({ root: webRoot, logLevel: 'warn', build: { outDir: distDir, emptyOutDir: true } });
const model = await startScriptedModelServer();
const gateway = await startGateway({
  config: loadConfig({
    env: {
      NEXUS_PORT: '0',
      NEXUS_DATA_DIR: join(workDir, 'data'),
      NEXUS_LOG_LEVEL: 'silent',
      NEXUS_MEMORY_EXTRACTION: 'false',
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: model.baseUrl,
      NEXUS_MODEL: 'scripted',
    },
  }),
  webDistDir: distDir,
});
const chatUrl = `${gateway.url}/#token=${gateway.token}`;
const screenshotsDir = join(webRoot, 'bench', 'screenshots');
const memory = new MemoryService({
  store: createSqliteMemoryStore({ path: join(workDir, 'data', 'memory.sqlite') }),
});
const screenshotTarget = {
  chatUrl,
  enqueueReply: (text: string) => model.enqueue({ text }),
  seedMemories: async (clientId: string) => {
    const userId = `web:${clientId}`;
    await memory.add({
      userId,
      content: 'Lives in Lisbon and works as a nurse',
      category: 'fact',
      source: 'user_explicit',
    });
    await memory.add({
      userId,
      content: 'Prefers short answers with a table when comparing things',
      category: 'preference',
    });
    await memory.add({ userId, content: 'Plays chess on Sunday mornings', category: 'pattern' });
    await memory.add({ userId, content: 'Travelling to Porto in May', category: 'event' });
  },
};

try {
  if (values['screenshots-only']) {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    try {
      const files = await takeScreenshots(browser, screenshotTarget, screenshotsDir);
      log(`screenshots: ${files.length} in ${screenshotsDir}`);
    } finally {
      await browser.close();
    }
    process.exit(0);
  }
  if (values['markdown-only']) {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    try {
      const line = { ...(await measureLongReply(browser)), ...lexCost(), load_average: loadAverage() };
      process.stdout.write(`${JSON.stringify(line)}\n`);
    } finally {
      await browser.close();
    }
    process.exit(0);
  }
  const scores = await runLighthouse();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  try {
    const files = await takeScreenshots(browser, screenshotTarget, screenshotsDir);
    log(`screenshots: ${files.length} in ${screenshotsDir}`);
    const longReply = await measureLongReply(browser);
    const loads = [];
    for (let run = 0; run < runs; run++) loads.push(await firstLoad(browser));
    const axeSerious = await axeViolations(browser);
    const line = {
      lighthouse_performance: scores.performance,
      lighthouse_accessibility: scores.accessibility,
      lighthouse_best_practices: scores['best-practices'],
      axe_serious: axeSerious,
      js_gzip_kb: Math.round(Math.max(...loads.map((load) => load.jsGzipBytes)) / 102.4) / 10,
      first_load_ms: Math.round(median(loads.map((load) => load.ms))),
      ...longReply,
      ...lexCost(),
      load_average: loadAverage(),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  } finally {
    await browser.close();
  }
} finally {
  await gateway.close();
  await model.close();
  await rm(workDir, { recursive: true, force: true });
}

/** Lighthouse's default (mobile, simulated throttling) run of the chat page in its own Chromium. */
async function runLighthouse(): Promise<Record<string, number>> {
  const port = await freePort();
  const profile = join(workDir, 'lighthouse-profile');
  const chrome = spawn(
    CHROMIUM,
    [
      '--headless=new',
      ...CHROMIUM_FLAGS,
      `--remote-debugging-port=${port}`,
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: 'ignore' },
  );
  try {
    await waitForDevTools(port);
    const result = await lighthouse(chatUrl, {
      port,
      logLevel: 'error',
      output: 'json',
      onlyCategories: ['performance', 'accessibility', 'best-practices'],
    });
    if (!result) throw new Error('Lighthouse returned no result.');
    const scores: Record<string, number> = {};
    for (const [id, category] of Object.entries(result.lhr.categories)) {
      scores[id] = Math.round((category.score ?? 0) * 100);
      for (const ref of category.auditRefs) {
        const audit = result.lhr.audits[ref.id];
        if (ref.weight > 0 && audit && audit.score !== null && audit.score < 0.9)
          log(`lighthouse ${id}: ${ref.id} scored ${audit.score} (${audit.displayValue ?? audit.title})`);
      }
    }
    log(`lighthouse: ${JSON.stringify(scores)}`);
    return scores;
  } finally {
    chrome.kill();
  }
}

async function waitForDevTools(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/json/version`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Chromium did not open its DevTools port ${port}.`);
}

type Browser = Awaited<ReturnType<typeof chromium.launch>>;

/** One first load in a fresh profile: time until the chat is usable, and the JavaScript it fetched. */
async function firstLoad(browser: Browser): Promise<{ ms: number; jsGzipBytes: number }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const scripts: Promise<number>[] = [];
  page.on('response', (response) => {
    const type = response.headers()['content-type'] ?? '';
    if (type.includes('javascript')) scripts.push(response.body().then((body) => gzipSync(body).length));
  });
  await page.goto(chatUrl, { waitUntil: 'commit' });
  const ready = await page.waitForFunction(
    () => (document.querySelector('[data-testid=status-line][data-phase=open]') ? performance.now() : false),
    undefined,
    { polling: 'raf' },
  );
  const ms = Number(await ready.jsonValue());
  // Lazily loaded chunks and the service worker count too: wait until the network is quiet.
  await page.waitForLoadState('networkidle');
  // The service worker's own script is fetched by the browser, not the page: add it by hand.
  const worker = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker?.getRegistration();
    return (registration?.active ?? registration?.waiting ?? registration?.installing)?.scriptURL;
  });
  if (worker) scripts.push(fetch(worker).then(async (response) => gzipSync(await response.bytes()).length));
  const jsGzipBytes = (await Promise.all(scripts)).reduce((sum, bytes) => sum + bytes, 0);
  await context.close();
  log(`first load: ${Math.round(ms)} ms, ${scripts.length} scripts, ${jsGzipBytes} bytes gzip`);
  return { ms, jsGzipBytes };
}

/** The lexer's CPU time for the 100 KB reply: one parse, and the whole reply streamed in chunks. */
function lexCost() {
  const chunks = longReplyChunks(100_000);
  const text = chunks.join('');
  const cpuMs = (work: () => void) => {
    const start = process.cpuUsage();
    work();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  lexMarkdown(text);
  const once = median(Array.from({ length: 5 }, () => cpuMs(() => lexMarkdown(text))));
  const blocks = median(Array.from({ length: 5 }, () => cpuMs(() => lexBlocks(text))));
  // What a hostile reply costs: emphasis nested deep is quadratic in marked unless cut in pieces.
  const hostile = '*_a '.repeat(25_000);
  const nested = median(Array.from({ length: 3 }, () => cpuMs(() => lexMarkdown(hostile))));
  const streamed = median(
    Array.from({ length: 3 }, () =>
      cpuMs(() => {
        const markdown = new IncrementalMarkdown();
        let sofar = '';
        for (const chunk of chunks) {
          sofar += chunk;
          markdown.update(sofar);
        }
        markdown.update(sofar, true);
      }),
    ),
  );
  return {
    lex_100kb_cpu_ms: Math.round(once * 10) / 10,
    lex_100kb_blocks_cpu_ms: Math.round(blocks * 10) / 10,
    lex_100kb_nested_emphasis_cpu_ms: Math.round(nested * 10) / 10,
    stream_100kb_cpu_ms: Math.round(streamed * 10) / 10,
  };
}

/**
 * The 100 KB reply: streamed (the last chunk and the end, until drawn), then opened from history
 * three times (until its end is drawn, and until all of it is). Main-thread work from a Chromium
 * trace, medians of the three openings.
 */
async function measureLongReply(browser: Browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  // Marks each reply frame's arrival, and the frame after it was handled.
  await page.addInitScript(() => {
    const Native = WebSocket;
    window.WebSocket = class extends Native {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        this.addEventListener('message', (event) => {
          const data = typeof event.data === 'string' ? event.data : '';
          const type = data.includes('"reply.delta"')
            ? 'reply-delta'
            : data.includes('"reply.end"')
              ? 'reply-end'
              : '';
          if (type === '') return;
          performance.mark(type);
          requestAnimationFrame(() => setTimeout(() => performance.mark(`${type}-drawn`), 0));
        });
      }
    };
  });
  await page.goto(chatUrl);
  await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
  // A chunk every 5 ms, as a model streams: chunks written at once would reach the page as one
  // delta (the gateway joins the deltas of one event-loop turn).
  model.enqueue({ chunks: longReplyChunks(100_000), chunkDelayMs: 5 });
  await page.getByTestId('message-input').fill('Write a long report');
  const stream = await traceMainThread(
    browser,
    page,
    async () => {
      await page.getByTestId('send-button').click();
      await page.locator('[data-role=assistant][data-state=done]').waitFor({ timeout: 120_000 });
      await page.waitForFunction(() => performance.getEntriesByName('reply-end-drawn').length > 0);
    },
    // The trace keeps the last of each mark: the last chunk, and the end of the reply.
    { lastChunk: ['reply-delta', 'reply-delta-drawn'], end: ['reply-end', 'reply-end-drawn'] },
  );
  log(
    `100 KB reply streamed: last chunk ${JSON.stringify(stream.work.lastChunk)}, end ${JSON.stringify(stream.work.end)}`,
  );
  const openings: Record<string, MainThreadWork>[] = [];
  for (let run = 0; run < 3; run++) {
    const opened = await traceMainThread(browser, page, () => openLongReply(page), {
      visible: ['long-reply-open', 'long-reply-visible'],
      complete: ['long-reply-open', 'long-reply-complete'],
    });
    const { visibleMs, completeMs, steps, largestStep, elements, longTasks } = opened.result;
    log(
      `100 KB reply opened: end shown after ${visibleMs.toFixed(1)} ms wall ${JSON.stringify(opened.work.visible)}, ` +
        `whole after ${completeMs.toFixed(1)} ms wall in ${steps} steps (largest ${largestStep} of ${elements} elements) ` +
        `${JSON.stringify(opened.work.complete)}, long tasks ${JSON.stringify(longTasks)}`,
    );
    openings.push(opened.work);
  }
  await context.close();
  const middle = (pick: (work: Record<string, MainThreadWork>) => number) => median(openings.map(pick));
  return {
    markdown_100kb_cpu_ms: middle((work) => work.visible!.cpuMs),
    markdown_100kb_wall_ms: middle((work) => work.visible!.wallMs),
    markdown_100kb_longest_task_ms: middle((work) => work.complete!.longestTaskMs),
    markdown_100kb_whole_cpu_ms: middle((work) => work.complete!.cpuMs),
    stream_100kb_last_chunk_cpu_ms: stream.work.lastChunk!.cpuMs,
    stream_100kb_end_cpu_ms: stream.work.end!.cpuMs,
  };
}

/** Serious and critical axe-core violations (affected elements) over every view, light and dark. */
async function axeViolations(browser: Browser): Promise<number> {
  let total = 0;
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const size of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      // Only this measuring context bypasses the page's CSP, to inject axe-core's script.
      const context = await browser.newContext({ viewport: size, colorScheme, bypassCSP: true });
      const page = await context.newPage();
      await page.goto(chatUrl);
      await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
      model.enqueue({
        text: '## A reply\n\nWith **bold**, `code`, a [link](https://example.com) and:\n\n```ts\nconst x = 1; // one\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two',
      });
      await page.getByTestId('message-input').fill('Show me some Markdown');
      await page.getByTestId('send-button').click();
      await page.locator('[data-role=assistant][data-state=done]').waitFor();
      const where = `${colorScheme} ${size.width}px`;
      total += await check(page, `chat (${where})`);
      await page.getByTestId('more-button').click();
      total += await check(page, `header menu (${where})`);
      await page.keyboard.press('Escape');
      for (const panel of ['memory', 'pairing', 'channels']) {
        await page.getByTestId('more-button').click();
        await page.getByTestId(`${panel}-button`).click();
        await page.getByTestId('panel-sheet').waitFor();
        await page.waitForTimeout(300);
        total += await check(page, `${panel} panel (${where})`);
        await page.keyboard.press('Escape');
      }
      if ((await page.getByTestId('conversation-list').count()) === 0)
        await page.getByTestId('conversations-button').click();
      total += await check(page, `conversation list (${where})`);
      await context.close();
    }
  }
  return total;
}

async function check(page: Page, view: string): Promise<number> {
  await page.evaluate(axe.source);
  const results = (await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, {
      resultTypes: ['violations'],
    }),
  )) as axe.AxeResults;
  let count = 0;
  for (const violation of results.violations) {
    if (violation.impact !== 'serious' && violation.impact !== 'critical') continue;
    count += violation.nodes.length;
    for (const node of violation.nodes)
      log(
        `axe ${view}: ${violation.id} (${violation.impact}) at ${node.target.join(' ')}: ${node.failureSummary ?? ''}`,
      );
  }
  return count;
}

function loadAverage(): number[] {
  return loadavg().map((value) => Math.round(value * 100) / 100);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
