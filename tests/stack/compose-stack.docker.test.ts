import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '@nexus/testkit';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_REPLY, isChatTurn } from '../../apps/gateway/src/testing/memory-test-support.ts';
import { ResendingWebClient } from '../../apps/gateway/src/testing/resending-web-client.ts';
import { ComposeProject } from './docker/compose-project.ts';
import {
  findMarker,
  memoryServiceCall,
  metric,
  modelRequests,
  residentMemory,
  setModelLatency,
  volumeFilesContaining,
} from './docker/stack-probes.ts';
import { createSecrets, DEFAULT_SECRETS_GID, type StackSecrets } from './docker/stack-secrets.ts';

// `pnpm test:stack` (tests/stack/docker/run-stack-test.sh builds the images first): the default
// stack of docker-compose.yml, started with docker-compose exactly as a self-hoster would, with
// only Qdrant and the model swapped for the testkit's stand-ins (compose.test.yml). Everything is
// checked through the published loopback port or through Docker itself.

const PROJECT = process.env.NEXUS_STACK_PROJECT ?? `nexus-stack-${randomBytes(4).toString('hex')}`;
const IMAGE = process.env.NEXUS_STACK_IMAGE ?? 'nexus:stack-test';
const DEFAULT_SERVICES = 6; // nexus, two memory replicas (compose.test.yml), redis, qdrant, model
const figures: Record<string, string> = {};

let project: ComposeProject;
let secrets: StackSecrets;
let url: string;
let token: string;

type RecordedRequest = Awaited<ReturnType<typeof modelRequests>>[number];
const lastUser = (request: RecordedRequest) =>
  JSON.stringify(request.body.messages.findLast((message) => message.role === 'user')?.content ?? '');
/** Chat turns (not extraction or memory decisions) whose last user message contains `text`. */
const chatTurnsAsking = async (text: string) =>
  (await modelRequests(project)).filter(
    (request) => isChatTurn(request.body as never) && lastUser(request).includes(text),
  );
const systemPrompt = (request: RecordedRequest) => String(request.body.messages[0]?.content ?? '');

async function gatewayContainer(): Promise<string> {
  const [name] = await project.containersOf('nexus');
  if (!name) throw new Error('no nexus container');
  return name;
}

beforeAll(async () => {
  secrets = await createSecrets();
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  project = new ComposeProject(PROJECT, {
    NEXUS_IMAGE: IMAGE,
    NEXUS_SECRETS_DIR: secrets.dir,
    NEXUS_PUBLISH: `127.0.0.1:${port}`,
    NEXUS_STACK_REPO: process.env.NEXUS_STACK_REPO ?? process.cwd(),
    NEXUS_MODEL_PROVIDER: 'openai-compatible',
    NEXUS_MODEL_BASE_URL: 'http://model:8000/v1',
    NEXUS_MODEL: 'scripted',
    NEXUS_WEB_MESSAGES_PER_MINUTE: '100000',
    NEXUS_RATE_LIMIT_PER_MINUTE: '100000',
    NEXUS_RATE_LIMIT_BURST: '1000',
    // Runs each consumer (the gateway's role `all`, each worker) takes at once. At the default 16
    // the gateway and one worker could hold a whole 16-message burst between them, and BullMQ hands
    // jobs to whichever consumer claims first, so a worker sometimes got none (runs 9 / 0 once).
    NEXUS_WORKER_CONCURRENCY: '4',
  });
  const started = performance.now();
  await project.compose(['up', '--detach', '--no-build']).catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await project.logTail()}`);
  });
  await project.waitHealthy(DEFAULT_SERVICES);
  figures['cold up → all healthy'] = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  token = (await project.exec(await gatewayContainer(), ['cat', '/data/web-token'])).trim();
}, 300_000);

afterAll(async () => {
  if (process.env.NEXUS_STACK_KEEP !== '1') await project?.down();
  await secrets?.remove();
  process.stdout.write(
    `\nstack figures (load average ${(await import('node:os'))
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}):\n${Object.entries(figures)
      .map(([name, value]) => `  ${name}: ${value}`)
      .join('\n')}\n`,
  );
}, 120_000);

describe('the default docker-compose stack', () => {
  it('answers a web-chat turn over /ws, and a fact told on turn 1 reaches turn 2’s prompt', async () => {
    const ann = await WebChatClient.connect({ url, token, clientId: 'ann' });
    try {
      expect((await ann.ask('first', "I'm vegetarian and I live in Lisbon")).text).toBe(CHAT_REPLY);
      // Extraction runs on a job after the reply; turn 2 is asked until its prompt has the fact.
      let prompt = '';
      for (let attempt = 0; attempt < 30 && !prompt.includes('Is vegetarian'); attempt += 1) {
        expect((await ann.ask(`second-${attempt}`, 'What should I cook tonight?')).text).toBe(CHAT_REPLY);
        const turns = await chatTurnsAsking('What should I cook tonight?');
        prompt = systemPrompt(turns.at(-1)!);
        if (!prompt.includes('Is vegetarian')) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(prompt).toContain('Is vegetarian');
      expect(prompt).toContain('Lives in Lisbon');

      const latencies: number[] = [];
      for (let turn = 0; turn < 20; turn += 1) {
        const started = performance.now();
        expect((await ann.ask('latency', `turn ${turn}`)).text).toBe(CHAT_REPLY);
        latencies.push(performance.now() - started);
      }
      latencies.sort((left, right) => left - right);
      figures['turn latency through the stack (20 turns)'] =
        `median ${latencies[10]!.toFixed(0)} ms, p95 ${latencies[18]!.toFixed(0)} ms`;
    } finally {
      await ann.close();
    }
  }, 120_000);

  it('searches memory by meaning out of the box: hybrid on the provider’s embeddings, near-duplicates merged by cosine', async () => {
    // Nothing sets NEXUS_EMBEDDING_MODEL: the memory service asked the model service for
    // nomic-embed-text at start, as it asks the ollama profile's Ollama.
    expect(await memoryServiceCall(project, '/health')).toMatchObject({
      search: 'hybrid',
      embedder: 'openai-compatible:nomic-embed-text',
      reason: expect.stringContaining('the provider serves nomic-embed-text'),
    });
    // Cosine 0.97 with the stand-in's vectors but only 0.71 of their words shared, under the
    // lexical check's 0.8: merged only by the 0.92 cosine check.
    const userId = `stack-cosine-${randomUUID()}`;
    const sofa = 'Has a cat that is called Miso and it is the one that is always on the sofa';
    const bed = 'Has a cat that is called Miso and it is the one that is always on the bed';
    expect(await memoryServiceCall(project, '/add', { userId, content: sofa })).toMatchObject({
      action: 'inserted',
    });
    expect(await memoryServiceCall(project, '/add', { userId, content: bed })).toMatchObject({
      action: 'updated',
      deduplicated: true,
      previousContent: sofa,
    });
    await memoryServiceCall(project, '/reset', { userId });
  });

  it('shares runs with two workers of --profile workers', async () => {
    await project.compose(['--profile', 'workers', 'up', '--detach', '--no-build', '--scale', 'worker=2']);
    await project.waitHealthy(DEFAULT_SERVICES + 2);
    const workers = await project.containersOf('worker');
    expect(workers).toHaveLength(2);
    const before = await Promise.all(
      workers.map((worker) => metric(project, worker, 'nexus_agent_runs_total{outcome="ok"}')),
    );
    // A slow model keeps every consumer busy: 16 runs of 400 ms against 4 slots each, more than
    // the gateway and one worker hold, so the burst spreads over all of them.
    await setModelLatency(project, 400);
    const bob = await WebChatClient.connect({ url, token, clientId: 'bob' });
    try {
      const replies = await Promise.all(
        Array.from({ length: 16 }, (_, index) => bob.ask(`burst-${index}`, `burst message ${index}`)),
      );
      expect(replies.map((reply) => reply.text)).toEqual(Array(16).fill(CHAT_REPLY));
    } finally {
      await setModelLatency(project, 0);
      await bob.close();
    }
    const after = await Promise.all(
      workers.map((worker) => metric(project, worker, 'nexus_agent_runs_total{outcome="ok"}')),
    );
    const ranByWorkers = after.map((count, index) => count - before[index]!);
    figures['burst of 16 with two workers: runs per worker'] = ranByWorkers.join(' / ');
    expect(
      ranByWorkers.every((runs) => runs > 0),
      `runs per worker: ${ranByWorkers}`,
    ).toBe(true);
  }, 240_000);

  it('makes one fact of 50 concurrent identical adds for one person sent to two memory replicas', async () => {
    const replicas = await project.containersOf('memory');
    expect(replicas).toHaveLength(2);
    const run = randomUUID();
    const person = `replicas-${run}`;
    // 60 more people told one fact each on both replicas at once: the burst queues at Qdrant, so
    // each replica's adds stay long between reading a person's memories and inserting.
    const others = Array.from({ length: 60 }, (_, index) => `replicas-${run}-${index}`);
    const script = (body: string) =>
      `const key=require('fs').readFileSync('/run/secrets/memory-api-key','utf8').trim();const call=(path,body)=>fetch('http://127.0.0.1:8787'+path,{method:body?'POST':'GET',headers:{'x-api-key':key,'content-type':'application/json'},body:body?JSON.stringify(body):undefined}).then(r=>r.json());const person=${JSON.stringify(person)};const others=${JSON.stringify(others)};${body}`;
    // Each replica's own port from inside its container, started on one signal however slow
    // `docker exec` is: 25 identical adds for one person, and the 60 others, to each replica.
    const burst = script(
      "process.stdout.write('ready\\n');process.stdin.once('data',()=>Promise.all([...Array.from({length:25},()=>call('/add',{userId:person,content:'Plays the cello on Sundays'})),...others.map(userId=>call('/add',{userId,content:'Plays the cello on Sundays'}))]).then(r=>{process.stdout.write(JSON.stringify(r.slice(0,25).map(x=>x.action??x.error?.code)));process.exit(0)}))",
    );
    const bursts = replicas.map((replica) => project.execOnSignal(replica, ['node', '-e', burst]));
    await Promise.all(bursts.map((started) => started.ready));
    for (const started of bursts) started.go();
    const actions = (await Promise.all(bursts.map((started) => started.output))).flatMap(
      (output) => JSON.parse(output) as string[],
    );
    expect(actions).toHaveLength(50);
    expect(actions.filter((action) => action === 'inserted')).toHaveLength(1);
    const counts = script(
      "Promise.all([person,...others].map(userId=>call('/memories?userId='+userId).then(r=>r.memories.length))).then(n=>process.stdout.write(JSON.stringify(n)))",
    );
    for (const replica of replicas)
      expect(JSON.parse(await project.exec(replica, ['node', '-e', counts]))).toEqual(Array(61).fill(1));
  }, 120_000);

  it('runs every container as non-root, hardened, with secrets as files and no token outside the gateway', async () => {
    const containers = await project.containers();
    const inspected = JSON.parse(
      await project.docker(['inspect', ...containers.map((container) => container.name)]),
    ) as Array<{
      Name: string;
      Config: { Env: string[]; Labels: Record<string, string> };
      HostConfig: { ReadonlyRootfs: boolean; CapDrop: string[] | null; SecurityOpt: string[] | null };
      Mounts: Array<{ Destination: string }>;
    }>;
    const secretValues = Object.values(secrets.values);
    for (const container of inspected) {
      const service = container.Config.Labels['com.docker.compose.service']!;
      const top = await project.docker(['top', container.Name.slice(1), '-eo', 'uid,pid,args']);
      const uids = top
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => Number(line.trim().split(/\s+/)[0]));
      expect(uids.length, service).toBeGreaterThan(0);
      expect(
        uids.filter((uid) => uid === 0),
        `${service} processes running as root:\n${top}`,
      ).toEqual([]);
      expect(container.HostConfig.CapDrop, service).toEqual(['ALL']);
      expect(container.HostConfig.SecurityOpt, service).toContain('no-new-privileges:true');
      for (const value of secretValues) {
        expect(
          container.Config.Env.some((entry) => entry.includes(value)),
          `${service} has a secret in its environment`,
        ).toBe(false);
      }
      if (['nexus', 'worker', 'memory'].includes(service)) {
        expect(container.HostConfig.ReadonlyRootfs, service).toBe(true);
      }
      if (service === 'memory') {
        // Only what `nexus memory serve` reads: no MCP or transcription credentials, of Redis only
        // the address, password and prefix (the replicas' write lease), no web chat or metrics
        // settings, no OpenTelemetry headers.
        const unused = container.Config.Env.filter((entry) =>
          /^(NEXUS_(MCP|TRANSCRIPTION|WEB|METRICS)_|NEXUS_REDIS_(?!(URL|PASSWORD|PREFIX)(_FILE)?=)|OTEL_)/u.test(
            entry,
          ),
        );
        expect(unused, service).toEqual([]);
      }
      if (service === 'worker' || service === 'memory') {
        const tokenSettings = container.Config.Env.filter((entry) =>
          /^NEXUS_(WEB_TOKEN|TELEGRAM_|DISCORD_|WHATSAPP_)/u.test(entry),
        );
        expect(tokenSettings, service).toEqual([]);
        const secretMounts = container.Mounts.map((mount) => mount.Destination).filter((path) =>
          path.startsWith('/run/secrets/'),
        );
        expect(secretMounts.sort(), service).toEqual(
          service === 'memory'
            ? ['/run/secrets/memory-api-key', '/run/secrets/qdrant-api-key', '/run/secrets/redis-password']
            : ['/run/secrets/memory-api-key', '/run/secrets/redis-password'],
        );
      }
    }
    // The secrets arrive as files owned by root and the secrets group (mode 0440), which the
    // unprivileged user that needs them reads through group_add alone.
    const gateway = await gatewayContainer();
    expect(
      (await project.exec(gateway, ['stat', '-c', '%u:%g %a', '/run/secrets/redis-password'])).trim(),
    ).toBe(`0:${DEFAULT_SECRETS_GID} 440`);
    expect((await project.exec(gateway, ['id', '-u'])).trim()).toBe('1000');
    expect((await project.exec(gateway, ['id', '-G'])).trim().split(' ')).toContain(
      String(DEFAULT_SECRETS_GID),
    );
    expect((await project.exec(gateway, ['cat', '/run/secrets/redis-password'])).trim()).toBe(
      secrets.values['redis-password'],
    );
    const memoryService = (await project.containersOf('memory'))[0]!;
    expect((await project.exec(memoryService, ['cat', '/run/secrets/memory-api-key'])).trim()).toBe(
      secrets.values['memory-api-key'],
    );
    const memory = await project.containersOf('memory');
    expect((await project.exec(memory[0]!, ['ls', '/data'])).split('\n')).not.toContain('web-token');
    const rss = await residentMemory(project);
    figures['idle RSS per container (docker stats)'] = Object.entries(rss)
      .map(([name, mib]) => `${name} ${mib.toFixed(1)} MiB`)
      .join(', ');
  }, 120_000);

  it('keeps memories, conversations and the web token across `docker-compose restart`', async () => {
    const started = performance.now();
    await project.compose(['--profile', 'workers', 'restart', '--timeout', '20']);
    await project.waitHealthy(DEFAULT_SERVICES + 2);
    figures['restart → all healthy'] = `${((performance.now() - started) / 1000).toFixed(1)} s`;
    expect((await project.exec(await gatewayContainer(), ['cat', '/data/web-token'])).trim()).toBe(token);
    const ann = await WebChatClient.connect({ url, token, clientId: 'ann' });
    try {
      expect((await ann.ask('first', 'And for lunch tomorrow?')).text).toBe(CHAT_REPLY);
    } finally {
      await ann.close();
    }
    const turn = (await chatTurnsAsking('And for lunch tomorrow?')).at(-1)!;
    expect(systemPrompt(turn)).toContain('Is vegetarian');
    const history = JSON.stringify(turn.body.messages);
    expect(history).toContain("I'm vegetarian and I live in Lisbon");
  }, 240_000);

  it('answers every message of a burst exactly once when the gateway container is killed mid-burst', async () => {
    // Distinct reply ids per conversation: after a crash between the channel taking a reply and
    // the commit, the same reply (same id) may go out again, and the client shows it once.
    const replies = new Map<string, Set<string>>();
    let replyFrames = 0;
    const client = new ResendingWebClient({
      token,
      clientId: 'carol',
      onReply: (reply) => {
        replyFrames += 1;
        replies.set(
          reply.conversationId,
          (replies.get(reply.conversationId) ?? new Set()).add(reply.replyId),
        );
      },
    });
    await client.connect(url);
    let stopped = false;
    // Reconnects like the web app: after every close, until the test ends.
    const reconnecting = (async () => {
      while (!stopped) {
        await client.whenClosed();
        while (!stopped) {
          try {
            await client.connect(url);
            break;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }
      }
    })();
    await setModelLatency(project, 300);
    try {
      const conversations = Array.from({ length: 20 }, (_, index) => `kill-${index}`);
      for (const conversation of conversations)
        client.send(randomUUID(), conversation, `${conversation} hello`);
      const deadline = Date.now() + 30_000;
      while (replies.size < 3 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(replies.size, 'replies before the kill').toBeLessThan(conversations.length);
      const gateway = await gatewayContainer();
      await project.docker(['kill', gateway]);
      await project.compose(['up', '--detach', '--no-build', 'nexus']);
      await project.waitHealthy(DEFAULT_SERVICES + 2);
      const end = Date.now() + 90_000;
      while (replies.size < conversations.length && Date.now() < end) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await new Promise((resolve) => setTimeout(resolve, 2000)); // any late duplicate would show now
      expect(conversations.filter((conversation) => replies.get(conversation)?.size !== 1)).toEqual([]);
      figures['gateway killed mid-burst'] =
        `20 messages, 20 answers, ${replyFrames - conversations.length} reply frames sent again with the same id`;
      expect(client.refusals).toEqual([]);
    } finally {
      stopped = true;
      await setModelLatency(project, 0);
      await client.close();
      await Promise.race([reconnecting, new Promise((resolve) => setTimeout(resolve, 2000))]);
    }
  }, 240_000);

  it('erases a person across containers and volumes with /forget-me', async () => {
    const marker = `zqxmark${randomBytes(6).toString('hex')}`;
    const dan = await WebChatClient.connect({ url, token, clientId: 'dan' });
    try {
      expect((await dan.ask('d', `Remember: ${marker}`)).text).toBe(CHAT_REPLY);
      await expect
        .poll(async () => (await findMarker(project, marker)).qdrant.length, { timeout: 30_000 })
        .toBe(1);
      expect(await volumeFilesContaining(project, 'nexus-data', marker)).not.toEqual([]);
      expect((await dan.ask('d', '/forget-me')).text).toMatch(/forget-me confirm/);
      expect((await dan.ask('d', '/forget-me confirm')).text).toBeTruthy();
    } finally {
      await dan.close();
    }
    expect(await findMarker(project, marker)).toEqual({ redis: [], qdrant: [] });
    expect(await volumeFilesContaining(project, 'nexus-data', marker)).toEqual([]);
    expect(await volumeFilesContaining(project, 'memory-data', marker)).toEqual([]);
  }, 120_000);

  it('has `nexus doctor` in the image name a missing or unreadable secret with the fix', async () => {
    const doctor = async (mounts: string[]) =>
      project
        .docker([
          'run',
          '--rm',
          '--network',
          'none',
          ...mounts,
          '-e',
          'NEXUS_REDIS_URL=redis://redis:6379',
          '-e',
          'NEXUS_REDIS_PASSWORD_FILE=/run/secrets/redis-password',
          IMAGE,
          'doctor',
        ])
        .then(
          () => 'exit 0',
          (error: Error) => error.message,
        );
    const missing = await doctor([]);
    expect(missing).toContain('NEXUS_REDIS_PASSWORD_FILE: cannot read /run/secrets/redis-password');
    expect(missing).toContain('create secrets/redis-password beside docker-compose.yml');
    const unreadable = join(secrets.dir, 'unreadable');
    await writeFile(unreadable, 'secret\n', { mode: 0o600 });
    const denied = await doctor(['-v', `${unreadable}:/run/secrets/redis-password:ro`]);
    expect(denied).toContain('EACCES');
    expect(denied).toContain(
      'sudo chown root:8787 secrets/redis-password && sudo chmod 440 secrets/redis-password',
    );
  }, 60_000);
});
