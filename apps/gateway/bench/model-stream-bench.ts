// `pnpm bench:model-stream [--calls 3000] [--warmup 1000] [--chunks 6]`: what the AI SDK's
// streamed model call costs by itself. The scripted model runs in a child process, so this
// process's CPU and heap are the client's alone. Three ways to take the same streamed completion
// one call after another: `raw`, the gateway's model fetch with the body read and decoded (the
// least a client does); `sse`, the same plus the server-sent events split and each JSON parsed
// (what bench/bare-relay.ts does); `sdk`, the AI SDK's single-call primitive over the
// openai-compatible provider, as packages/core/src/agent/model-steps.ts calls it; `thread`, the
// same call with the provider on a model thread (NEXUS_MODEL_THREADS, as the gateway runs it).
// Prints CPU µs (the whole process, and this thread alone), this thread's heap KB and wall ms per
// call for each, and one JSON line last.
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { experimental_streamLanguageModelCall as streamModelCall } from 'ai';
import { startAllocationMeter } from '../../../bench/allocation-meter.ts';
import { printTable, round } from '../../../bench/bench-stats.ts';
import { createModelFetch } from '../src/composition/model-fetch.ts';
import { ModelThreadPool } from '../src/composition/model-threads/model-thread-pool.ts';
import { createThreadedLanguageModel } from '../src/composition/model-threads/threaded-language-model.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '1000' },
    chunks: { type: 'string', default: '6' },
    /** Only these ways (comma-separated), e.g. `sdk`. */
    only: { type: 'string', default: 'raw,sse,sdk,thread' },
    /** Writes a sampling heap profile of the measured calls (collected objects included) here. */
    'heap-profile': { type: 'string' },
    /** Internal: run as the child that serves the scripted model. */
    serve: { type: 'boolean', default: false },
  },
});
const chunks = Number(values.chunks);

if (values.serve) {
  const { startScriptedModelServer } = await import('@nexus/testkit/llm');
  const model = await startScriptedModelServer({ recordRequests: false });
  model.setResponder(() => ({
    chunks: Array.from({ length: chunks }, (_, index) => `word${index} `),
  }));
  process.send?.({ baseUrl: model.baseUrl });
  process.on('disconnect', () => void model.close().then(() => process.exit(0)));
} else {
  await measure();
}

async function measure(): Promise<void> {
  const calls = Number(values.calls);
  const warmup = Number(values.warmup);
  const server = fork(new URL(import.meta.url), ['--serve', '--chunks', String(chunks)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const baseUrl = await new Promise<string>((resolve) =>
    server.once('message', (message) => resolve((message as { baseUrl: string }).baseUrl)),
  );
  const modelFetch = createModelFetch();
  const provider = createOpenAICompatible({
    name: 'bench',
    baseURL: baseUrl,
    fetch: modelFetch,
    includeUsage: true,
  });
  const model = provider.chatModel('scripted');
  const pool = new ModelThreadPool({ threads: 1 });
  const threadedModel = createThreadedLanguageModel(pool, {
    provider: 'openai-compatible',
    baseUrl,
    name: 'scripted',
  });
  const body = (text: string) =>
    JSON.stringify({
      model: 'scripted',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: text }],
    });
  const headers = { 'content-type': 'application/json' };

  async function raw(text: string): Promise<string> {
    const response = await modelFetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers,
      body: body(text),
    });
    const decoder = new TextDecoder();
    let all = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
      all += decoder.decode(chunk, { stream: true });
    return all;
  }
  async function sse(text: string): Promise<string> {
    const all = await raw(text);
    let reply = '';
    for (const event of all.split('\n\n')) {
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
      const parsed = JSON.parse(event.slice(6)) as { choices?: { delta?: { content?: string } }[] };
      reply += parsed.choices?.[0]?.delta?.content ?? '';
    }
    return reply;
  }
  async function sdk(text: string, on = model): Promise<string> {
    const call = await streamModelCall({
      model: on,
      instructions: 'You are a bench.',
      messages: [{ role: 'user', content: text }],
      abortSignal: new AbortController().signal,
    });
    let reply = '';
    for await (const part of call.stream) if (part.type === 'text-delta') reply += part.text;
    return reply;
  }

  const expected = Array.from({ length: chunks }, (_, index) => `word${index} `).join('');
  const rows: [string, string][] = [];
  const result: Record<string, unknown> = { calls, chunks };
  for (const [name, run] of [
    ['raw', raw],
    ['sse', sse],
    ['sdk', sdk],
    ['thread', (text: string) => sdk(text, threadedModel)],
  ] as const) {
    if (!values.only.split(',').includes(name)) continue;
    for (let call = 0; call < warmup; call += 1) await run(`warm ${call}`);
    const heapProfile = values['heap-profile'] ? await startHeapSampling() : undefined;
    const meter = startAllocationMeter();
    const cpu = process.cpuUsage();
    const threadCpu = process.threadCpuUsage();
    const started = performance.now();
    for (let call = 0; call < calls; call += 1) {
      const reply = await run(`call ${call}`);
      if (name !== 'raw' && reply !== expected) throw new Error(`${name}: unexpected reply ${reply}`);
    }
    const elapsed = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const usedHere = process.threadCpuUsage(threadCpu);
    const allocation = meter.stop();
    if (heapProfile) await heapProfile.stopInto(`${values['heap-profile']}/${name}.heapprofile`);
    const cpuUs = round((used.user + used.system) / calls, 1);
    const cpuHereUs = round((usedHere.user + usedHere.system) / calls, 1);
    const kb = round(allocation.allocatedBytes / 1024 / calls, 1);
    result[`${name}_cpu_us_per_call`] = cpuUs;
    result[`${name}_main_thread_cpu_us_per_call`] = cpuHereUs;
    result[`${name}_kb_per_call`] = kb;
    rows.push([
      `${name}: CPU µs (all threads / this thread) / this thread's heap KB / wall ms per call`,
      `${cpuUs} / ${cpuHereUs} / ${kb} / ${round(elapsed / calls)}`,
    ]);
  }
  result.load_average = loadavg().map((value) => round(value));
  rows.push(['load average (1, 5, 15 min)', (result.load_average as number[]).join(', ')]);
  printTable(rows);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  server.disconnect();
  await pool.close();
}

/** V8's sampling heap profiler, counting objects already collected too: where the bytes go. */
async function startHeapSampling() {
  const { Session } = await import('node:inspector/promises');
  const { writeFile } = await import('node:fs/promises');
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return {
    async stopInto(path: string): Promise<void> {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      await writeFile(path, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
