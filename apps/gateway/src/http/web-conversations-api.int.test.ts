import { WEB_SOCKET_SUBPROTOCOL } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGateway } from '../testing/test-gateway.ts';

let model: ScriptedModelServer;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  model = await startScriptedModelServer();
  gateway = await startTestGateway({ modelBaseUrl: model.baseUrl });
});

afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  await gateway?.dispose();
  await model?.close();
});

interface Frame {
  type: string;
  change?: string;
  conversation?: { conversationId: string; title: string; renamed: boolean };
  event?: { type: string; text?: string };
}

async function signIn(token: string, clientId: string): Promise<string> {
  const response = await fetch(`${gateway.url}/api/web/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ clientId }),
  });
  expect(response.status).toBe(200);
  return (response.headers.get('set-cookie') ?? '').split(';')[0]!;
}

/** A signed-in browser's socket: every frame it receives is kept. */
async function socketOf(cookie: string): Promise<{ socket: WebSocket; frames: Frame[] }> {
  const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/ws`, [WEB_SOCKET_SUBPROTOCOL], {
    headers: { cookie },
  });
  sockets.push(socket);
  const frames: Frame[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as Frame));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'hello', clientId: 'whatever-the-browser-says' }));
  await expect.poll(() => frames.some((frame) => frame.type === 'welcome')).toBe(true);
  return { socket, frames };
}

const api = (cookie: string, path: string, init: RequestInit = {}) =>
  fetch(`${gateway.url}/api/web/conversations${path}`, {
    ...init,
    headers: { cookie, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

const changes = (frames: Frame[]) =>
  frames
    .filter((frame) => frame.type === 'conversation')
    .map((frame) => `${frame.change}:${frame.conversation?.conversationId}:${frame.conversation?.title}`);

describe('web conversations kept on the gateway per person', () => {
  it("lists, reads, renames and deletes the owner's conversations on every browser, live, and never for an invited person", async () => {
    const ownerA = await signIn(gateway.token, 'browser-a');
    const ownerB = await signIn(gateway.token, 'browser-b');
    const invite = await fetch(`${gateway.url}/api/web/invites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bea' }),
    });
    const invited = await signIn(((await invite.json()) as { token: string }).token, 'browser-bea');
    const a = await socketOf(ownerA);
    const b = await socketOf(ownerB);
    const bea = await socketOf(invited);

    a.socket.send(
      JSON.stringify({
        type: 'message',
        clientMessageId: 'm1',
        conversationId: 'trip',
        text: 'Plan a trip to Porto',
      }),
    );
    await expect
      .poll(() => a.frames.some((frame) => frame.event?.type === 'reply.end'), { timeout: 15_000 })
      .toBe(true);
    // The other browser of the same person hears of the new conversation and of its stored turn.
    await expect
      .poll(() => changes(b.frames))
      .toEqual(['created:trip:Plan a trip to Porto', 'turn:trip:Plan a trip to Porto']);

    const listed = (await (await api(ownerB, '')).json()) as { conversations: Frame['conversation'][] };
    expect(listed.conversations.map((entry) => [entry?.conversationId, entry?.title])).toEqual([
      ['trip', 'Plan a trip to Porto'],
    ]);
    const read = (await (await api(ownerB, '/trip')).json()) as {
      messages: { clientMessageId: string; text: string; replyText: string; replyId?: string }[];
      more: boolean;
    };
    expect(read.more).toBe(false);
    expect(read.messages).toHaveLength(1);
    expect(read.messages[0]).toMatchObject({ clientMessageId: 'm1', text: 'Plan a trip to Porto' });
    expect(read.messages[0]!.replyText).toContain('Plan a trip to Porto');
    expect(read.messages[0]!.replyId).toEqual(expect.any(String));

    const renamed = await api(ownerA, '/trip', {
      method: 'PATCH',
      body: JSON.stringify({ title: '  Porto  weekend ' }),
    });
    expect(renamed.status).toBe(200);
    await expect.poll(() => changes(b.frames).at(-1)).toBe('renamed:trip:Porto weekend');

    // The invited person sees none of it, cannot read, rename or delete it, and heard nothing.
    expect(await (await api(invited, '')).json()).toEqual({ conversations: [] });
    expect((await api(invited, '/trip')).status).toBe(404);
    expect((await api(invited, '/trip', { method: 'PATCH', body: '{"title":"mine"}' })).status).toBe(404);
    expect((await api(invited, '/trip', { method: 'DELETE' })).status).toBe(404);
    expect(changes(bea.frames)).toEqual([]);

    const deleted = await api(ownerB, '/trip', { method: 'DELETE' });
    expect(await deleted.json()).toEqual({ deleted: true, deletedTurns: 1 });
    await expect.poll(() => changes(a.frames).at(-1)).toBe('deleted:trip:Porto weekend');
    expect(await (await api(ownerA, '')).json()).toEqual({ conversations: [] });
    expect((await api(ownerA, '/trip')).status).toBe(404);
    expect(changes(bea.frames)).toEqual([]);
  });

  it('imports a browser’s conversations once, answers bad input with clear 4xx errors, and takes the token too', async () => {
    const cookie = await signIn(gateway.token, 'browser-c');
    const held = {
      conversationId: 'held-1',
      title: 'Recipes',
      renamed: true,
      createdAt: 1_000,
      updatedAt: 2_000,
      exchanges: [
        { clientMessageId: 'h1', text: 'A soup?', replyText: 'Try caldo verde.', createdAt: 1_100 },
        {
          clientMessageId: 'h2',
          text: 'Vegetarian?',
          replyText: 'Leave out the chouriço.',
          createdAt: 1_200,
        },
      ],
    };
    const body = JSON.stringify({ conversations: [held] });
    const first = await api(cookie, '/import', { method: 'POST', body });
    expect(await first.json()).toEqual({ results: [{ conversationId: 'held-1', outcome: 'imported' }] });
    const again = await api(cookie, '/import', { method: 'POST', body });
    expect(await again.json()).toEqual({ results: [{ conversationId: 'held-1', outcome: 'present' }] });
    const read = (await (await api(cookie, '/held-1')).json()) as {
      messages: { clientMessageId: string; text: string }[];
    };
    expect(read.messages.map((message) => [message.clientMessageId, message.text])).toEqual([
      ['h1', 'A soup?'],
      ['h2', 'Vegetarian?'],
    ]);

    // A token client names its person in X-Nexus-Client, as the other web routes take it.
    const session = await fetch(`${gateway.url}/api/web/session`, { headers: { cookie } });
    const owner = ((await session.json()) as { clientId: string }).clientId;
    const byToken = await fetch(`${gateway.url}/api/web/conversations`, {
      headers: { authorization: `Bearer ${gateway.token}`, 'x-nexus-client': owner },
    });
    expect(
      ((await byToken.json()) as { conversations: { title: string }[] }).conversations.map((c) => c.title),
    ).toContain('Recipes');

    const refusals = await Promise.all([
      api(cookie, '/held-1', { method: 'PATCH', body: JSON.stringify({ title: '   ' }) }),
      api(cookie, '/held-1', { method: 'PATCH', body: JSON.stringify({ title: 'x'.repeat(81) }) }),
      api(cookie, '/held-1?limit=1000'),
      api(cookie, '/import', { method: 'POST', body: '{"conversations": [{"conversationId": "bad id!"}]}' }),
      api(cookie, '/import', { method: 'POST', body: 'not json' }),
      api(cookie, '/import', { method: 'POST', body: 'x'.repeat(9 * 1024 * 1024) }),
      api(cookie, '/held-1', { method: 'PUT' }),
      api(cookie, '/no-such'),
      fetch(`${gateway.url}/api/web/conversations`),
    ]);
    expect(refusals.map((response) => response.status)).toEqual([
      400, 400, 400, 400, 400, 413, 405, 404, 401,
    ]);
    for (const response of refusals.slice(0, 8))
      expect(((await response.json()) as { error: { message: string } }).error.message).toEqual(
        expect.any(String),
      );
    // The gateway is still up and the stored list unchanged.
    const listed = (await (await api(cookie, '')).json()) as { conversations: { conversationId: string }[] };
    expect(listed.conversations.map((entry) => entry.conversationId)).toEqual(['held-1']);
  });
});
