import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { type AccessStore, createAccessStore } from '@nexus/core';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { privateFilePath } from '../data-dir/private-path.ts';
import { startTestGateway } from '../testing/test-gateway.ts';
import { until } from '../testing/until.ts';

/** A port nothing listens on (taken, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

let dataDir: string;
let store: AccessStore;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `nexus <args>` as its own process, as the owner would from a shell. */
function nexus(args: string[], env: Record<string, string> = {}, directory = dataDir): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', NEXUS_DATA_DIR: directory, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-cli-'));
  // Private like the gateway makes it, so doctor's permission check has nothing to say here.
  store = createAccessStore({ path: privateFilePath(join(dataDir, 'access.sqlite')) });
});
afterEach(async () => {
  store.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('nexus pairing', () => {
  it('lists pending requests, approves one by code and rejects another', async () => {
    store.pairing.create({
      channel: 'telegram',
      platformId: '1001',
      displayName: 'Ann',
      code: 'ABCD2345',
      ttlMs: 3_600_000,
    });
    store.pairing.create({ channel: 'discord', platformId: '2002', code: 'WXYZ6789', ttlMs: 3_600_000 });

    const listed = await nexus(['pairing', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/ABCD2345\s+telegram\s+1001\s+Ann\s+60 minutes/);
    expect(listed.stdout).toMatch(/WXYZ6789\s+discord\s+2002/);

    const approved = await nexus(['pairing', 'approve', 'abcd-2345']);
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toMatch(/Approved telegram:1001 \(Ann\)/);
    expect(store.identities.find({ channel: 'telegram', platformId: '1001' })?.approved).toBe(true);

    const rejected = await nexus(['pairing', 'reject', 'WXYZ6789']);
    expect(rejected.code).toBe(0);
    expect(store.pairing.lastRejectedAt({ channel: 'discord', platformId: '2002' })).toBeDefined();
    expect(store.identities.find({ channel: 'discord', platformId: '2002' })).toBeUndefined();

    const [again, empty, usage] = await Promise.all([
      nexus(['pairing', 'approve', 'WXYZ6789']),
      nexus(['pairing', 'list']),
      nexus(['pairing', 'approve']),
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/No pending pairing request has the code WXYZ6789; `nexus pairing list`/);
    expect(empty.stdout).toBe('No pending pairing requests.\n');
    expect(usage.code).toBe(64);
  });
});

describe('nexus users', () => {
  it('lists people, links an identity to another person and unlinks it again', async () => {
    store.identities.ensure({ channel: 'web', platformId: 'laptop' });
    store.identities.ensure({ channel: 'telegram', platformId: '1001', displayName: 'Ann' });

    const linked = await nexus(['users', 'link', 'telegram:1001', 'web:laptop']);
    expect(linked).toMatchObject({ code: 0, stderr: '' });
    expect(store.identities.find({ channel: 'telegram', platformId: '1001' })?.userId).toBe('web:laptop');

    const listed = await nexus(['users', 'list']);
    // One person, both identities listed under it (in creation order, which a fast machine may tie).
    const rows = listed.stdout.trim().split('\n').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^web:laptop\s+no\s+/);
    expect(rows.some((row) => /telegram:1001\s+Ann\s+linked/.test(row))).toBe(true);
    expect(
      rows.some((row) => /\sweb:laptop\s*$/.test(row) || /^web:laptop\s+no\s+web:laptop/.test(row)),
    ).toBe(true);

    const unlinked = await nexus(['users', 'unlink', 'telegram:1001']);
    expect(unlinked.stdout).toMatch(/it is person telegram:1001 again/);
    expect(store.identities.find({ channel: 'telegram', platformId: '1001' })?.userId).toBe('telegram:1001');

    const [wrong, usage, unknown] = await Promise.all([
      nexus(['users', 'unlink', 'web:laptop']),
      nexus(['users', 'link', 'telegram']),
      nexus(['users', 'link', 'slack:1', 'web:laptop']),
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/not linked to anyone/);
    expect(usage.code).toBe(64);
    expect(unknown.stderr).toMatch(/No identity slack:1 is known/);
  });
});

describe('while the gateway runs', () => {
  let model: ScriptedModelServer;
  beforeAll(async () => {
    model = await startScriptedModelServer();
  });
  afterAll(async () => {
    await model.close();
  });

  it('an approval from the CLI lets the waiting sender in on their next message', async () => {
    const gateway = await startTestGateway({
      modelBaseUrl: model.baseUrl,
      env: { NEXUS_WEB_DM_POLICY: 'pairing' },
    });
    const client = await WebChatClient.connect({
      url: gateway.url,
      token: gateway.token,
      clientId: 'new-phone',
    });
    try {
      const notice = await client.ask('chat', 'hello');
      const code = /\*\*([A-Z0-9]{8})\*\*/.exec(notice.text ?? '')?.[1] ?? 'none';
      expect((await nexus(['pairing', 'list'], {}, gateway.config.dataDir)).stdout).toContain(code);
      expect((await nexus(['pairing', 'approve', code], {}, gateway.config.dataDir)).code).toBe(0);
      expect((await client.ask('chat', 'am I in?')).text).toBe('Echo: am I in?');
      expect(model.chatRequests().some((request) => JSON.stringify(request.body).includes('"hello"'))).toBe(
        false,
      );
    } finally {
      await client.close();
      await gateway.dispose();
    }
  });
});

/** Conversation summaries waiting in the gateway's job file for conversations whose key holds `conversation`. */
function waitingSummaries(dataDir: string, conversation: string): number {
  const database = new DatabaseSync(join(dataDir, 'jobs.sqlite'), { readOnly: true });
  try {
    const row = database
      .prepare(
        "SELECT count(*) AS n FROM jobs WHERE name = 'memory.summarize' AND status = 'waiting' AND payload LIKE ?",
      )
      .get(`%${conversation}%`) as { n: number };
    return row.n;
  } finally {
    database.close();
  }
}

describe('nexus users forget', () => {
  it('deletes what the running gateway keeps about a person, and nothing of anyone else', async () => {
    const model = await startScriptedModelServer();
    const gateway = await startTestGateway({ modelBaseUrl: model.baseUrl });
    const ann = await WebChatClient.connect({ url: gateway.url, token: gateway.token, clientId: 'ann' });
    const bob = await WebChatClient.connect({ url: gateway.url, token: gateway.token, clientId: 'bob' });
    try {
      await ann.ask('ann-chat', 'my locker code is 4471');
      // And a reminder: the command must erase what the gateway's /forget-me erases.
      model.enqueue({
        toolCalls: [{ name: 'schedule', arguments: { text: 'Locker 4471', cron: '0 9 * * *' } }],
      });
      model.enqueue({ text: 'I will remind you.' });
      await ann.ask('ann-chat', 'remind me about my locker every morning');
      await bob.ask('bob-chat', 'my bike is blue');
      // A file she uploaded from the web page: its record and its bytes are hers too.
      const uploaded = await fetch(`${gateway.url}/api/web/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.token}`, 'x-nexus-client-id': 'ann' },
        body: new TextEncoder().encode('locker 4471'),
      });
      expect(uploaded.status).toBe(201);
      expect(waitingSummaries(gateway.config.dataDir, 'ann-chat')).toBe(1);
      const forgot = await nexus(['users', 'forget', 'web:ann'], {}, gateway.config.dataDir);
      expect(forgot).toMatchObject({ code: 0, stderr: '' });
      expect(waitingSummaries(gateway.config.dataDir, 'ann-chat')).toBe(0);
      // Memory jobs: her conversation summary, scheduled for when the chat goes quiet, and the
      // extraction of her last turn if it has not run yet.
      expect(forgot.stdout).toMatch(
        /Forgot person web:ann:\n {2}memories: 0\n {2}conversation turns: 2\n {2}memory jobs: \d+\n {2}web upload records: 1\n {2}media files: 1\n {2}reminders: 1\n/,
      );
      await ann.ask('ann-chat', 'what is my locker code?');
      await bob.ask('bob-chat', 'what colour is my bike?');
      // Her next turn schedules her conversation's summary again: the gateway saw the command's
      // commit and forgot the job it had scheduled, which the command deleted.
      await until(() => waitingSummaries(gateway.config.dataDir, 'ann-chat') === 1, 'her summary job');
      const prompt = (text: string) =>
        JSON.stringify(
          model.chatRequests().findLast((request) => JSON.stringify(request.body).includes(text))?.body,
        );
      expect(prompt('what is my locker code?')).not.toContain('4471');
      expect(prompt('what colour is my bike?')).toContain('my bike is blue');

      const unknown = await nexus(['users', 'forget', 'web:nobody'], {}, gateway.config.dataDir);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/No person or identity web:nobody is known/);
    } finally {
      await Promise.all([ann.close(), bob.close()]);
      await gateway.dispose();
      await model.close();
    }
  }, 30_000);
});

describe('nexus doctor', () => {
  let model: ScriptedModelServer;
  let telegram: FakeTelegram;
  beforeAll(async () => {
    model = await startScriptedModelServer({ models: ['scripted'] });
    telegram = await startFakeTelegram();
  });
  afterAll(async () => {
    await Promise.all([model.close(), telegram.close()]);
  });

  it('says everything is fine when it is', async () => {
    store.pairing.create({ channel: 'telegram', platformId: '5', code: 'PQRS2345', ttlMs: 3_600_000 });
    const result = await nexus(['doctor'], {
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: model.baseUrl,
      NEXUS_MODEL: 'scripted',
      NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
      NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
      NEXUS_REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(result.stdout).toContain('✓ config: valid');
    expect(result.stdout).toMatch(/✓ store .*access\.sqlite: readable, intact \(schema 4\)/);
    expect(result.stdout).toMatch(
      /! access: 1 pairing request waiting for you\n {4}fix: see them with `nexus pairing list`/,
    );
    expect(result.stdout).toContain('✓ queue: Redis at 127.0.0.1:6379 answers');
    expect(result.stdout).toContain(
      `✓ model: openai-compatible at ${model.baseUrl} is reachable and serves "scripted"`,
    );
    expect(result.stdout).toContain('✓ telegram: token accepted (bot @nexus_test_bot)');
    expect(result.stdout).toContain('✓ access telegram: direct messages: pairing');
    expect(result.code).toBe(0);
  });

  it('names each problem and its fix, and exits 1', async () => {
    const result = await nexus(['doctor'], {
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: model.baseUrl,
      NEXUS_MODEL: 'llama-that-is-not-there',
      NEXUS_TELEGRAM_BOT_TOKEN: '123:wrong-token',
      NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
      NEXUS_TELEGRAM_DM_POLICY: 'open',
      NEXUS_REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /✗ model: .* does not serve "llama-that-is-not-there" \(it lists scripted\)\n {4}fix: pull it/,
    );
    expect(result.stdout).toMatch(
      /✗ telegram: the bot token was rejected \(HTTP 401\)\n {4}fix: .*@BotFather/,
    );
    expect(result.stdout).toMatch(
      /✗ queue: cannot reach Redis at 127\.0\.0\.1:1 \(ECONNREFUSED\)\n {4}fix: start Redis/,
    );
    expect(result.stdout).toMatch(
      /! access telegram: direct messages are open.*\n {4}fix: set NEXUS_TELEGRAM_DM_POLICY=pairing/,
    );

    const closedPort = await freePort();
    const down = await nexus(['doctor'], {
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: `http://127.0.0.1:${closedPort}/v1`,
      NEXUS_MODEL: 'x',
    });
    expect(down.stdout).toContain(
      `✗ model: cannot reach openai-compatible at http://127.0.0.1:${closedPort}/v1 (ECONNREFUSED)\n    fix: start the model server`,
    );
    // No provider, no embeddings either: memory search is lexical, and doctor says why.
    expect(down.stdout).toContain(
      `! memory search: lexical (BM25): no answer from http://127.0.0.1:${closedPort}/v1/embeddings for nomic-embed-text (ECONNREFUSED)`,
    );
    expect(down.stdout).toMatch(/\n1 problem to fix, 1 warning\.\n$/);
  });

  it('reports configuration errors key by key instead of failing', async () => {
    const result = await nexus(['doctor'], { NEXUS_PORT: 'eighty', NEXUS_WEB_DM_POLICY: 'friends' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /✗ config: NEXUS_PORT \(config key "server\.port"\): .*got "eighty"\n {4}fix: set it to a free TCP port/,
    );
    expect(result.stdout).toMatch(
      /✗ config: NEXUS_WEB_DM_POLICY .*\n {4}fix: use one of pairing, allowlist, open, disabled/,
    );
    expect(result.stdout).toContain('! other checks: skipped until the configuration is valid');
  });
});
