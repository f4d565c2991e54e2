import { Boom } from '@hapi/boom';
import {
  buildDirectMessage,
  createFakeWhatsAppSocketFactory,
  type FakeWhatsAppSocket,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { DisconnectReason } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WhatsAppLinkState } from './link-state.ts';
import { openWhatsAppDatabase } from './open-whatsapp-database.ts';
import { createRecordingSink, createWhatsAppHarness } from './testing/whatsapp-harness.ts';

let harness: ReturnType<typeof createWhatsAppHarness>;
beforeEach(() => {
  harness = createWhatsAppHarness();
});
afterEach(async () => {
  await harness.cleanup();
});

function closeWith(statusCode: number): Boom {
  return new Boom('closed by the test', { statusCode });
}

async function startLinked(options: Parameters<typeof harness.channel>[1] = {}) {
  const factory = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
  const states: WhatsAppLinkState[] = [];
  const channel = harness.channel(factory, { onLinkState: (state) => states.push(state), ...options });
  const recording = createRecordingSink();
  await channel.start({ sink: recording.sink });
  const first = await factory.socket(0);
  first.open();
  return { factory, channel, first, states, intents: recording.intents };
}

/** Messages emitted on a retired socket must reach nobody: its listeners were removed. */
async function expectDeaf(
  socket: FakeWhatsAppSocket,
  channel: { idle(): Promise<void> },
  intents: unknown[],
): Promise<void> {
  const before = intents.length;
  socket.receive([buildDirectMessage({ from: '310000000002@lid', text: 'to a dead socket' })]);
  await channel.idle();
  expect(intents).toHaveLength(before);
}

/** Lets pending timers with the harness's few-millisecond backoff fire. */
function settle(ms = 60): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('connection policy, socket by socket', () => {
  it.each([
    ['connectionClosed', DisconnectReason.connectionClosed],
    ['connectionLost', DisconnectReason.connectionLost],
    ['badSession', DisconnectReason.badSession],
    ['unavailableService', DisconnectReason.unavailableService],
    ['restartRequired', DisconnectReason.restartRequired],
  ])('%s: a new socket replaces the old one, whose listeners are gone', async (_name, code) => {
    const { factory, channel, first, intents } = await startLinked();
    first.close(closeWith(code));
    const second = await factory.socket(1);
    expect(second).not.toBe(first);
    expect(factory.configs[1]?.auth).toBe(factory.configs[0]?.auth);
    await expectDeaf(first, channel, intents);
    second.open();
    second.receive([buildDirectMessage({ from: '310000000002@lid', text: 'to the live socket' })]);
    await channel.idle();
    expect(intents.map((intent) => intent.text)).toEqual(['to the live socket']);
    expect(channel.health()).toEqual({ status: 'up' });
  });

  it('restartRequired reconnects at once; other closes wait for backoff', async () => {
    const { factory, first, states } = await startLinked({ reconnect: { initialMs: 5_000, maxMs: 10_000 } });
    first.close(closeWith(DisconnectReason.restartRequired));
    expect(states.at(-1)).toMatchObject({ status: 'reconnecting', nextAttemptInMs: 0 });
    const second = await factory.socket(1);
    second.open();
    second.close(closeWith(DisconnectReason.connectionClosed));
    expect(states.at(-1)).toMatchObject({ status: 'reconnecting', lastDisconnect: { statusCode: 428 } });
    expect(states.at(-1)?.nextAttemptInMs).toBeLessThanOrEqual(5_000);
    await settle();
    expect(factory.sockets).toHaveLength(2);
  });

  it.each([
    ['loggedOut', DisconnectReason.loggedOut, 'needs_relink'],
    ['forbidden', DisconnectReason.forbidden, 'needs_relink'],
    ['multideviceMismatch', DisconnectReason.multideviceMismatch, 'needs_relink'],
    ['connectionReplaced', DisconnectReason.connectionReplaced, 'replaced'],
  ])('%s: stops for good, no new socket', async (_name, code, status) => {
    const { factory, channel, first } = await startLinked();
    first.close(closeWith(code));
    await settle();
    expect(factory.sockets).toHaveLength(1);
    expect(channel.linkState()).toMatchObject({ status, lastDisconnect: { statusCode: code } });
    expect(channel.health().status).toBe('down');
  });

  it('loggedOut wipes the dead credentials; starting again links anew', async () => {
    const { factory, channel, first } = await startLinked();
    const auth = factory.configs[0]?.auth;
    if (!auth) throw new Error('no auth');
    auth.creds.registered = true;
    first.ev.emit('creds.update', { registered: true });
    first.close(closeWith(DisconnectReason.loggedOut));
    await channel.stop();
    const database = openWhatsAppDatabase(harness.authPath);
    expect(database.prepare('SELECT COUNT(*) AS count FROM wa_creds').get()).toEqual({ count: 0 });
    database.close();

    await channel.start({ sink: createRecordingSink().sink });
    await factory.socket(1);
    expect(factory.configs[1]?.auth.creds.registered).toBe(false);
  });

  it('backoff grows exponentially up to the cap and resets only after a stable open period', async () => {
    let clock = 1_000_000;
    const { factory, first, states } = await startLinked({
      reconnect: { initialMs: 2, maxMs: 16 },
      random: () => 0.999_999,
      now: () => clock,
      stableOpenMs: 60_000,
    });
    const delays: number[] = [];
    let socket = first;
    for (let index = 0; index < 6; index += 1) {
      socket.close(closeWith(DisconnectReason.connectionClosed));
      delays.push(states.at(-1)?.nextAttemptInMs ?? -1);
      socket = await factory.socket(index + 1);
      // Flapping: opens, but drops again before the link counts as stable.
      socket.open();
    }
    expect(delays).toEqual([2, 4, 8, 16, 16, 16]);

    clock += 60_000;
    socket.close(closeWith(DisconnectReason.connectionClosed));
    expect(states.at(-1)?.nextAttemptInMs).toBe(2);
  });

  it('the watchdog replaces a socket whose transport went silent', async () => {
    const { factory, channel, first, intents } = await startLinked({ watchdogMs: 80 });
    const second = await factory.socket(1);
    expect(first.ended).toBe(true);
    expect(channel.linkState().lastDisconnect?.statusCode).toBe(DisconnectReason.connectionLost);
    await expectDeaf(first, channel, intents);
    expect(second.ended).toBe(false);
  });

  it('stop ends the socket without reconnecting (and without logging out)', async () => {
    const { factory, channel, first } = await startLinked();
    await channel.stop();
    await settle();
    expect(first.ended).toBe(true);
    expect(factory.sockets).toHaveLength(1);
    expect(channel.health()).toEqual({ status: 'stopped' });
  });
});

describe('one process per account', () => {
  it('a second channel on the same auth file cannot start while the first runs', async () => {
    const { channel } = await startLinked();
    const intruder = harness.channel(createFakeWhatsAppSocketFactory(), { lockWaitMs: 50 });
    await expect(intruder.start({ sink: createRecordingSink().sink })).rejects.toMatchObject({
      code: 'channel_unavailable',
      retryable: true,
    });
    expect(intruder.health()).toEqual({ status: 'stopped' });
    await channel.stop();
    const factory = createFakeWhatsAppSocketFactory();
    const successor = harness.channel(factory);
    await successor.start({ sink: createRecordingSink().sink });
    await factory.socket(0);
  });
});

describe('linking', () => {
  it('shows the QR through onQr and linkState', async () => {
    const factory = createFakeWhatsAppSocketFactory();
    const qrs: string[] = [];
    const channel = harness.channel(factory, { onQr: (qr) => qrs.push(qr) });
    await channel.start({ sink: createRecordingSink().sink });
    const socket = await factory.socket(0);
    socket.showQr('2@abc,def,ghi');
    expect(qrs).toEqual(['2@abc,def,ghi']);
    expect(channel.linkState()).toMatchObject({ status: 'awaiting_link', qr: '2@abc,def,ghi' });
    expect(channel.health()).toEqual({ status: 'connecting', detail: 'awaiting_link' });
  });

  it('requests one pairing code for the phone number instead of showing QRs', async () => {
    const factory = createFakeWhatsAppSocketFactory();
    const codes: string[] = [];
    const qrs: string[] = [];
    const channel = harness.channel(factory, {
      pairingPhoneNumber: '+1 (555) 000-0001',
      onPairingCode: (code) => codes.push(code),
      onQr: (qr) => qrs.push(qr),
    });
    await channel.start({ sink: createRecordingSink().sink });
    const socket = await factory.socket(0);
    socket.showQr('2@first');
    socket.showQr('2@second');
    await settle(5);
    expect(socket.pairingCodeRequests).toEqual(['15550000001']);
    expect(codes).toEqual(['FAKE0001']);
    expect(qrs).toEqual([]);
    expect(channel.linkState()).toMatchObject({ status: 'awaiting_link', pairingCode: 'FAKE0001' });
  });
});
