import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createSqliteMemoryStore, MemoryService } from '@nexus/memory';
import { WEB_SOCKET_SUBPROTOCOL } from '@nexus/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGateway } from '../testing/test-gateway.ts';
import { WEB_SESSIONS_FILE } from '../web/web-sessions.ts';

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let memory: MemoryService;
let store: ReturnType<typeof createSqliteMemoryStore>;

beforeAll(async () => {
  gateway = await startTestGateway();
  store = createSqliteMemoryStore({ path: join(gateway.config.dataDir, 'memory.sqlite') });
  memory = new MemoryService({ store });
});

afterAll(async () => {
  store?.close();
  await gateway?.dispose();
});

/** What a browser does with the owner link: trade the token for a cookie, naming its own client id. */
async function signIn(clientId: string, token = gateway.token) {
  const response = await fetch(`${gateway.url}/api/web/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ clientId }),
  });
  const body = (await response.json()) as { clientId?: string };
  const setCookie = response.headers.get('set-cookie') ?? '';
  return { status: response.status, body, setCookie, cookie: setCookie.split(';')[0] ?? '' };
}

const withCookie = (cookie: string, init: RequestInit = {}, headers: Record<string, string> = {}) => ({
  ...init,
  headers: { cookie, ...headers },
});

/** A browser's socket with only its cookie (no token): the client id it reports in `hello`. */
function helloWith(cookie: string, clientId: string): Promise<{ clientId: string; frames: unknown[] }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/ws`, [WEB_SOCKET_SUBPROTOCOL], {
      headers: { cookie },
    });
    const frames: unknown[] = [];
    socket.on('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade ${response.statusCode}`)),
    );
    socket.on('error', reject);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'hello', clientId })));
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type: string };
      frames.push(frame);
      if (frame.type === 'welcome') {
        socket.close();
        resolve({ clientId, frames });
      }
    });
  });
}

describe('web sign-in with the owner link', () => {
  it('makes every browser the owner: the first browser’s id, its memories, one cookie each', async () => {
    const first = await signIn('browser-first');
    expect(first.status).toBe(200);
    expect(first.body.clientId).toBe('browser-first');
    expect(first.setCookie).toMatch(/^nexus_session=[\w-]{40,};/);
    expect(first.setCookie).toContain('HttpOnly');
    expect(first.setCookie).toContain('SameSite=Strict');
    expect(first.setCookie).not.toContain('Secure');

    const second = await signIn('browser-second');
    expect(second.body.clientId).toBe('browser-first');
    expect(second.cookie).not.toBe(first.cookie);

    await memory.add({ userId: 'web:browser-first', content: 'Lives in Lisbon', category: 'fact' });
    await memory.add({ userId: 'web:browser-second', content: 'A stranger’s browser', category: 'fact' });
    // The second browser, by cookie alone, naming itself in the header: it sees the owner's memory.
    const listed = await fetch(
      `${gateway.url}/api/memory`,
      withCookie(second.cookie, {}, { 'x-nexus-client': 'browser-second' }),
    );
    expect(listed.status).toBe(200);
    const contents = ((await listed.json()) as { memories: { content: string }[] }).memories.map(
      (item) => item.content,
    );
    expect(contents).toEqual(['Lives in Lisbon']);

    const session = await fetch(`${gateway.url}/api/web/session`, withCookie(second.cookie));
    expect(await session.json()).toEqual({ clientId: 'browser-first', person: 'owner' });
    await expect(helloWith(second.cookie, 'browser-second')).resolves.toMatchObject({
      frames: [{ type: 'welcome' }],
    });

    // Only session hashes are stored, privately.
    const file = await stat(join(gateway.config.dataDir, WEB_SESSIONS_FILE));
    expect(file.mode & 0o077).toBe(0);
  });

  it('binds the socket to the person: a resume of the owner’s conversation is not refused', async () => {
    const { cookie } = await signIn('browser-third');
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/ws`, [WEB_SOCKET_SUBPROTOCOL], {
      headers: { cookie },
    });
    await new Promise((resolve) => socket.once('open', resolve));
    const frames: { type: string; code?: string }[] = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data))));
    // A conversation the owner's first browser holds, resumed by a browser that said another id.
    const held = await new Promise<string>((resolve) => {
      const owner = new WebSocket(`${gateway.url.replace('http', 'ws')}/ws`, [WEB_SOCKET_SUBPROTOCOL], {
        headers: { authorization: `Bearer ${gateway.token}` },
      });
      owner.on('open', () =>
        owner.send(
          JSON.stringify({
            type: 'hello',
            clientId: 'browser-first',
            resume: { conversationId: 'owned-by-owner', lastSeq: 0 },
          }),
        ),
      );
      owner.on('message', () => {
        owner.close();
        resolve('owned-by-owner');
      });
    });
    socket.send(
      JSON.stringify({
        type: 'hello',
        clientId: 'someone-else',
        resume: { conversationId: held, lastSeq: 0 },
      }),
    );
    await expect.poll(() => frames.some((frame) => frame.type === 'welcome')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(frames.filter((frame) => frame.type === 'error')).toEqual([]);
    socket.close();
  });

  it('refuses a wrong token, and a signed-out cookie everywhere; the Bearer token keeps working', async () => {
    expect((await signIn('browser-x', 'not-the-token-0123456789')).status).toBe(401);
    const { cookie } = await signIn('browser-fourth');
    const other = await signIn('browser-fifth');
    const openSocket = async (with_: string) => {
      const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/ws`, [WEB_SOCKET_SUBPROTOCOL], {
        headers: { cookie: with_ },
      });
      await new Promise((resolve) => socket.once('open', resolve));
      const codes: number[] = [];
      socket.on('close', (code) => codes.push(code));
      return { socket, codes };
    };
    // Another tab of this browser (same cookie), and another device of the owner (its own).
    const sameBrowser = await openSocket(cookie);
    const otherDevice = await openSocket(other.cookie);
    const out = await fetch(`${gateway.url}/api/web/session`, withCookie(cookie, { method: 'DELETE' }));
    expect(await out.json()).toEqual({ signedOut: true });
    await expect.poll(() => sameBrowser.codes).toEqual([4401]);
    await helloWith(other.cookie, 'browser-fifth');
    expect(otherDevice.codes).toEqual([]);
    otherDevice.socket.close();
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');

    expect((await fetch(`${gateway.url}/api/web/session`, withCookie(cookie))).status).toBe(401);
    expect((await fetch(`${gateway.url}/api/memory`, withCookie(cookie))).status).toBe(401);
    expect((await fetch(`${gateway.url}/ws`, withCookie(cookie))).status).toBe(401);
    await expect(helloWith(cookie, 'browser-fourth')).rejects.toThrow('upgrade 401');

    const byToken = await fetch(`${gateway.url}/api/memory`, {
      headers: { authorization: `Bearer ${gateway.token}`, 'x-nexus-client': 'browser-first' },
    });
    expect(byToken.status).toBe(200);
  });

  it('marks the cookie Secure behind a TLS proxy on this machine', async () => {
    const response = await fetch(`${gateway.url}/api/web/session`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gateway.token}`,
        'content-type': 'application/json',
        'x-forwarded-proto': 'https',
      },
      body: JSON.stringify({ clientId: 'browser-behind-proxy' }),
    });
    expect(response.headers.get('set-cookie')).toMatch(/; Secure$/);
  });
});

describe('invite links', () => {
  async function invite(name: string, auth: Record<string, string>) {
    const response = await fetch(`${gateway.url}/api/web/invites`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    return {
      status: response.status,
      body: (await response.json()) as { invite: { inviteId: string; clientId: string }; token: string },
    };
  }

  it('is a different person, kept out of the owner’s routes, and refused once revoked', async () => {
    const owner = await signIn('browser-first');
    const ownerAuth = { cookie: owner.cookie };
    expect((await invite('', ownerAuth)).status).toBe(400);
    const made = await invite('Ann', ownerAuth);
    expect(made.status).toBe(201);

    const ann = await signIn('anns-browser', made.body.token);
    expect(ann.status).toBe(200);
    expect(ann.body).toEqual({ clientId: made.body.invite.clientId, person: 'invited', name: 'Ann' });
    expect(ann.body.clientId).not.toBe('browser-first');

    await memory.add({
      userId: `web:${made.body.invite.clientId}`,
      content: 'Ann likes tea',
      category: 'fact',
    });
    const anns = await fetch(
      `${gateway.url}/api/memory`,
      withCookie(ann.cookie, {}, { 'x-nexus-client': 'browser-first' }),
    );
    const contents = ((await anns.json()) as { memories: { content: string }[] }).memories.map(
      (item) => item.content,
    );
    expect(contents).toEqual(['Ann likes tea']);
    // The owner's routes stay closed to her cookie; the owner's own work.
    for (const path of ['/api/web/invites', '/api/pairing', '/api/channels']) {
      expect((await fetch(`${gateway.url}${path}`, withCookie(ann.cookie))).status).toBe(401);
    }
    const listed = await fetch(`${gateway.url}/api/web/invites`, withCookie(owner.cookie));
    expect(
      ((await listed.json()) as { invites: { name: string; revoked: boolean }[] }).invites,
    ).toContainEqual(expect.objectContaining({ name: 'Ann', revoked: false }));

    // Her open socket is closed when the owner revokes the link.
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/ws`, [WEB_SOCKET_SUBPROTOCOL], {
      headers: { cookie: ann.cookie },
    });
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'hello', clientId: 'anns-browser' }));
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    const revoked = await fetch(
      `${gateway.url}/api/web/invites/${made.body.invite.inviteId}`,
      withCookie(owner.cookie, { method: 'DELETE' }),
    );
    expect(revoked.status).toBe(200);
    expect(await closed).toBe(4401);
    expect((await fetch(`${gateway.url}/api/web/session`, withCookie(ann.cookie))).status).toBe(401);
    const again = await signIn('anns-browser', made.body.token);
    expect(again.status).toBe(403);
    expect(again.setCookie).toBe('');
  });
});
