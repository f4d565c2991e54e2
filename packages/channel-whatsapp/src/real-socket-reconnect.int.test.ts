import {
  buildDirectMessage,
  type FakeWhatsAppServer,
  startFakeWhatsAppServer,
} from '@nexus/testkit/whatsapp';
import { DisconnectReason, makeWASocket, type WASocket } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WhatsAppLinkState } from './link-state.ts';
import { createRecordingSink, createWhatsAppHarness } from './testing/whatsapp-harness.ts';
import type { WhatsAppSocketConfig } from './whatsapp-socket.ts';

let harness: ReturnType<typeof createWhatsAppHarness>;
let server: FakeWhatsAppServer;

beforeEach(async () => {
  harness = createWhatsAppHarness();
  server = await startFakeWhatsAppServer();
});
afterEach(async () => {
  await harness.cleanup();
  await server.close();
});

/** The real `makeWASocket`, with every socket it made kept for inspection. */
function recordingMakeWASocket() {
  const sockets: WASocket[] = [];
  return {
    sockets,
    factory(config: WhatsAppSocketConfig) {
      const socket = makeWASocket(config);
      sockets.push(socket);
      return socket;
    },
  };
}

function waitForState(
  states: WhatsAppLinkState[],
  predicate: (state: WhatsAppLinkState) => boolean,
  timeoutMs = 10_000,
): Promise<WhatsAppLinkState> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      const found = states.find(predicate);
      if (found) resolve(found);
      else if (Date.now() - started > timeoutMs) reject(new Error('state never reached'));
      else setTimeout(poll, 10);
    };
    poll();
  });
}

describe('real makeWASocket against a local WebSocket server', () => {
  it('a dropped connection (428) gets a new socket with backoff; old sockets stay deaf', async () => {
    server.setBehavior('drop-after-hello');
    const real = recordingMakeWASocket();
    const states: WhatsAppLinkState[] = [];
    const { sink, intents } = createRecordingSink();
    const channel = harness.channel(undefined, {
      socketFactory: real.factory,
      waWebSocketUrl: server.url,
      reconnect: { initialMs: 50, maxMs: 400 },
      socketConfig: { connectTimeoutMs: 5_000 },
      onLinkState: (state) => states.push(state),
    });
    await channel.start({ sink });
    await server.waitForConnections(4);

    // Baileys really spoke its noise protocol to us: the intro starts with "WA".
    expect(server.connections[0]?.firstFrame?.subarray(0, 2).toString()).toBe('WA');
    const closes = states.filter((state) => state.status === 'reconnecting');
    expect(closes[0]?.lastDisconnect?.statusCode).toBe(DisconnectReason.connectionClosed);
    const delays = closes.slice(0, 3).map((state) => state.nextAttemptInMs ?? -1);
    expect(delays.every((delay, index) => delay >= 0 && delay <= 50 * 2 ** index)).toBe(true);
    expect(real.sockets.length).toBeGreaterThanOrEqual(4);
    expect(new Set(real.sockets).size).toBe(real.sockets.length);

    const retired = real.sockets[0];
    retired?.ev.emit('messages.upsert', {
      type: 'notify',
      messages: [buildDirectMessage({ from: '310000000002@lid', text: 'ghost' })],
    });
    await channel.idle();
    expect(intents).toEqual([]);

    await channel.stop();
    const count = server.connections.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.connections.length).toBe(count);
    expect(server.connections.every((connection) => connection.closed)).toBe(true);
  });

  it('the watchdog replaces a socket whose server went silent', async () => {
    server.setBehavior('hold');
    const real = recordingMakeWASocket();
    const states: WhatsAppLinkState[] = [];
    const channel = harness.channel(undefined, {
      socketFactory: real.factory,
      waWebSocketUrl: server.url,
      reconnect: { initialMs: 20, maxMs: 100 },
      // Baileys' own handshake timeout is far away: only the watchdog can act.
      socketConfig: { connectTimeoutMs: 30_000 },
      watchdogMs: 300,
      onLinkState: (state) => states.push(state),
    });
    await channel.start({ sink: createRecordingSink().sink });
    await server.waitForConnections(2);
    const reconnect = await waitForState(states, (state) => state.status === 'reconnecting');
    expect(reconnect.lastDisconnect?.statusCode).toBe(DisconnectReason.connectionLost);
    expect(reconnect.detail).toMatch(/^No transport activity for \d+ ms$/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.connections[0]?.closed).toBe(true);
  });

  it("Baileys' own handshake timeout (408) is retried too", async () => {
    server.setBehavior('hold');
    const states: WhatsAppLinkState[] = [];
    const channel = harness.channel(undefined, {
      socketFactory: makeWASocket,
      waWebSocketUrl: server.url,
      reconnect: { initialMs: 20, maxMs: 100 },
      socketConfig: { connectTimeoutMs: 400 },
      onLinkState: (state) => states.push(state),
    });
    await channel.start({ sink: createRecordingSink().sink });
    await server.waitForConnections(2);
    const reconnect = await waitForState(states, (state) => state.status === 'reconnecting');
    expect(reconnect.lastDisconnect?.statusCode).toBe(DisconnectReason.timedOut);
    expect(reconnect.detail).not.toMatch(/No transport activity/);
  });
});
