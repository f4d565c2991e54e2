import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeWhatsAppSocketFactory, type FakeWhatsAppSocketFactory } from '@nexus/testkit/whatsapp';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.ts';
import { type RunningGateway, startGateway } from '../start-gateway.ts';
import type { ChannelView } from './channels-api.ts';

const QR = '2@fake-qr-payload,ZmFrZS1ub2lzZS1rZXk=,ZmFrZS1pZGVudGl0eS1rZXk=,ZmFrZS1hZHYtc2VjcmV0';
/** Baileys' `DisconnectReason.loggedOut`, as a Boom carries it on `output.statusCode`. */
const loggedOut = () =>
  Object.assign(new Error('Stream Errored (conflict)'), { output: { statusCode: 401 } });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function gatewayWithWhatsApp(env: Record<string, string> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'nexus-channels-api-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const whatsapp: FakeWhatsAppSocketFactory = createFakeWhatsAppSocketFactory();
  const config = loadConfig({
    env: {
      NEXUS_PORT: '0',
      NEXUS_DATA_DIR: dataDir,
      NEXUS_LOG_LEVEL: 'silent',
      NEXUS_MEMORY_EXTRACTION: 'false',
      NEXUS_WHATSAPP_ENABLED: 'true',
      ...env,
    },
  });
  const gateway: RunningGateway = await startGateway({ config, whatsappSocketFactory: whatsapp.factory });
  cleanups.push(() => gateway.close());
  return { gateway, whatsapp };
}

async function channels(gateway: RunningGateway, token = gateway.token) {
  const response = await fetch(`${gateway.url}/api/channels`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { channels: ChannelView[]; error?: { code: string } };
  return { status: response.status, headers: response.headers, body };
}

async function whatsAppView(gateway: RunningGateway): Promise<ChannelView | undefined> {
  const { body } = await channels(gateway);
  return body.channels.find((channel) => channel.name === 'whatsapp');
}

describe('GET /api/channels', () => {
  it('refuses requests without the gateway token', async () => {
    const { gateway } = await gatewayWithWhatsApp();
    const missing = await fetch(`${gateway.url}/api/channels`);
    expect(missing.status).toBe(401);
    expect(await missing.text()).not.toContain('whatsapp');
    const wrong = await channels(gateway, 'not-the-token-0123456789');
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    const relink = await fetch(`${gateway.url}/api/channels/whatsapp/relink`, { method: 'POST' });
    expect(relink.status).toBe(401);
  });

  it('shows the QR while WhatsApp waits to be linked, then the account once the phone linked it', async () => {
    const { gateway, whatsapp } = await gatewayWithWhatsApp();
    const socket = await whatsapp.socket(0);
    socket.showQr(QR);
    await expect.poll(async () => (await whatsAppView(gateway))?.link?.status).toBe('awaiting_link');

    const listed = await channels(gateway);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(listed.body.channels.map((channel) => channel.name)).toEqual(['web', 'whatsapp']);
    expect(listed.body.channels[0]).toMatchObject({ name: 'web', health: { status: 'up' } });
    expect(listed.body.channels[1]).toMatchObject({
      name: 'whatsapp',
      health: { status: 'connecting', detail: 'awaiting_link' },
      link: { status: 'awaiting_link', qr: QR },
    });

    socket.open();
    await expect.poll(async () => (await whatsAppView(gateway))?.health.status).toBe('up');
    const linked = await whatsAppView(gateway);
    expect(linked?.link).toMatchObject({ status: 'open', account: { phoneJid: expect.any(String) } });
    expect(linked?.link?.qr).toBeUndefined();
  });

  it('shows the pairing code instead of a QR when a phone number is configured', async () => {
    const { gateway, whatsapp } = await gatewayWithWhatsApp({
      NEXUS_WHATSAPP_PAIRING_PHONE: '15550109999',
    });
    const socket = await whatsapp.socket(0);
    socket.showQr(QR);
    await expect.poll(async () => (await whatsAppView(gateway))?.link?.pairingCode).toBe('FAKE0001');
    expect(socket.pairingCodeRequests).toEqual(['15550109999']);
    expect((await whatsAppView(gateway))?.link?.qr).toBeUndefined();
  });
});

describe('POST /api/channels/<name>/relink', () => {
  it('starts WhatsApp again after it was logged out, and refuses while the link is fine', async () => {
    const { gateway, whatsapp } = await gatewayWithWhatsApp();
    const relink = () =>
      fetch(`${gateway.url}/api/channels/whatsapp/relink`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.token}` },
      });
    const first = await whatsapp.socket(0);
    first.open();
    await expect.poll(async () => (await whatsAppView(gateway))?.link?.status).toBe('open');
    expect((await relink()).status).toBe(409);
    expect(whatsapp.sockets).toHaveLength(1);

    first.close(loggedOut());
    await expect.poll(async () => (await whatsAppView(gateway))?.link?.status).toBe('needs_relink');
    expect((await whatsAppView(gateway))?.link?.detail).toBe('logged_out');

    const restarted = await relink();
    expect(restarted.status).toBe(202);
    const second = await whatsapp.socket(1);
    second.showQr(QR);
    await expect
      .poll(async () => (await whatsAppView(gateway))?.link)
      .toMatchObject({
        status: 'awaiting_link',
        qr: QR,
      });
    const unknown = await fetch(`${gateway.url}/api/channels/telegram/relink`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.token}` },
    });
    expect(unknown.status).toBe(404);
  });
});
