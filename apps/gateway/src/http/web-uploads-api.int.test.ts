import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { personFolder } from '@nexus/core';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { makePdf, makePng } from '@nexus/testkit/media';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../testing/test-gateway.ts';

let model: ScriptedModelServer;
const disposers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  model = await startScriptedModelServer();
});
afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose();
  model.reset();
});
afterAll(async () => {
  await model.close();
});

async function gateway(env: Record<string, string> = {}) {
  const running = await startTestGateway({ modelBaseUrl: model.baseUrl, env });
  disposers.push(running.dispose);
  return running;
}

function upload(
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return fetch(`${url}/api/web/uploads`, { method: 'POST', headers, body }).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
  }));
}

describe('POST /api/web/uploads', () => {
  it('refuses with 429 an upload past the person’s daily media quota; another client still uploads', async () => {
    const running = await gateway({ NEXUS_MEDIA_PERSON_DAILY_BYTES: String(1000) });
    const headers = (client: string) => ({
      authorization: `Bearer ${running.token}`,
      'x-nexus-client-id': client,
    });
    const text = (fill: string) => new TextEncoder().encode(fill.repeat(600));
    expect((await upload(running.url, text('a'), headers('browser-q'))).status).toBe(201);
    const over = await upload(running.url, text('b'), headers('browser-q'));
    expect(over).toMatchObject({
      status: 429,
      body: { error: { code: 'rate_limited', message: expect.stringContaining('try again tomorrow') } },
    });
    expect((await upload(running.url, text('b'), headers('browser-r'))).status).toBe(201);
  });

  it('stores an image for its client, content-addressed in the media store, and refuses bad requests clearly', async () => {
    const running = await gateway({ NEXUS_MEDIA_MAX_BYTES: String(64 * 1024) });
    const auth = { authorization: `Bearer ${running.token}`, 'x-nexus-client-id': 'browser-a' };
    const png = makePng();

    const stored = await upload(running.url, png, {
      ...auth,
      'x-nexus-file-name': encodeURIComponent('a/b.png'),
    });
    expect(stored.status).toBe(201);
    expect(stored.body).toMatchObject({
      kind: 'image',
      mimeType: 'image/png',
      sizeBytes: png.byteLength,
      name: 'a_b.png',
    });
    expect(String(stored.body.uploadId)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(stored.body).not.toHaveProperty('path');
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(png).digest('hex');
    // Kept under the client's person id, so forgetting that person removes it.
    const path = join(running.config.dataDir, 'media', personFolder('web:browser-a'), hash);
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    const noToken = await upload(running.url, png, { 'x-nexus-client-id': 'browser-a' });
    expect(noToken).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    const noClient = await upload(running.url, png, { authorization: `Bearer ${running.token}` });
    expect(noClient).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('X-Nexus-Client-Id') } },
    });
    const tooLarge = await upload(running.url, new Uint8Array(65 * 1024), auth);
    expect(tooLarge).toMatchObject({ status: 413, body: { error: { code: 'attachment_too_large' } } });
    const zip = await upload(running.url, Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]), auth);
    expect(zip).toMatchObject({ status: 415, body: { error: { code: 'attachment_unsupported' } } });
    const empty = await upload(running.url, new Uint8Array(0), auth);
    expect(empty.status).toBe(400);

    // The gateway still answers after every refusal.
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
  });

  it('lets only the uploading client attach an upload, and refuses malformed web frames without dropping the socket', async () => {
    const running = await gateway({ NEXUS_MODEL_VISION: 'true' });
    const stored = await upload(running.url, makePng(), {
      authorization: `Bearer ${running.token}`,
      'x-nexus-client-id': 'owner',
    });
    const uploadId = String(stored.body.uploadId);

    const stranger = await WebChatClient.connect({
      url: running.url,
      token: running.token,
      clientId: 'stranger',
    });
    const refused = stranger.waitFor((frame) => frame.type === 'error' && frame.clientMessageId === 's1');
    stranger.sendRaw(
      JSON.stringify({
        type: 'message',
        clientMessageId: 's1',
        conversationId: 'c-stranger',
        text: '',
        attachments: [{ uploadId }],
      }),
    );
    expect(await refused).toMatchObject({ code: 'attachment_unavailable', retryable: false });

    for (const [id, frame] of [
      ['b1', { type: 'message', clientMessageId: 'b1', conversationId: 'c-stranger', text: '' }],
      [
        'b2',
        {
          type: 'message',
          clientMessageId: 'b2',
          conversationId: 'c-stranger',
          text: 'x',
          attachments: [{ uploadId: '../../etc/passwd' }],
        },
      ],
      [
        'b3',
        { type: 'edit', clientMessageId: 'b3', conversationId: 'c-stranger', targetClientMessageId: 's1' },
      ],
      ['b4', { type: 'delete', clientMessageId: 'b4', conversationId: 'c-stranger' }],
    ] as const) {
      const error = stranger.waitFor((incoming) => incoming.type === 'error');
      stranger.sendRaw(JSON.stringify(frame));
      expect(await error, id).toMatchObject({ type: 'error', code: 'bad_frame' });
      stranger.frames.length = 0;
    }

    const owner = await WebChatClient.connect({ url: running.url, token: running.token, clientId: 'owner' });
    model.enqueue({ text: 'A red square.' });
    const accepted = owner.waitFor((frame) => frame.type === 'accepted' && frame.clientMessageId === 'o1');
    const ended = owner.waitFor((frame) => frame.type === 'event' && frame.event.type === 'reply.end');
    owner.sendRaw(
      JSON.stringify({
        type: 'message',
        clientMessageId: 'o1',
        conversationId: 'c-owner',
        text: 'what is it?',
        attachments: [{ uploadId, name: 'x.png' }],
      }),
    );
    expect(await accepted).toMatchObject({ duplicate: false });
    await ended;
    const body = JSON.stringify(model.chatRequests()[0]?.body);
    expect(body).toContain('data:image/png;base64,');
    await stranger.close();
    await owner.close();
  });

  it('reads an uploaded PDF and gives its text to the model as context', async () => {
    const running = await gateway();
    const stored = await upload(running.url, makePdf(['Rent is due on the 3rd of each month.']), {
      authorization: `Bearer ${running.token}`,
      'x-nexus-client-id': 'owner',
      'x-nexus-file-name': 'lease.pdf',
    });
    expect(stored.body).toMatchObject({ kind: 'document', mimeType: 'application/pdf' });
    const owner = await WebChatClient.connect({ url: running.url, token: running.token, clientId: 'owner' });
    const ended = owner.waitFor((frame) => frame.type === 'event' && frame.event.type === 'reply.end');
    owner.sendRaw(
      JSON.stringify({
        type: 'message',
        clientMessageId: 'p1',
        conversationId: 'c-pdf',
        text: 'when is rent due?',
        attachments: [{ uploadId: String(stored.body.uploadId), name: 'lease.pdf' }],
      }),
    );
    await ended;
    const body = JSON.stringify(model.chatRequests()[0]?.body);
    expect(body).toContain('Attached document \\"lease.pdf\\"');
    expect(body).toContain('Rent is due on the 3rd of each month.');
    await owner.close();
  });
});
