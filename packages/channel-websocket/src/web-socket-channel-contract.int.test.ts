import { type MediaKind, NexusError } from '@nexus/protocol';
import { describeChannelContract } from '@nexus/testkit/channel';
import { startHarness, TestClient } from './testing/channel-test-harness.ts';
import type { WebUpload, WebUploads } from './web-uploads.ts';

const CLIENT_ID = 'contract-client';

/**
 * The gateway's upload store reduced to a map (the HTTP upload route is the gateway's, tested
 * there): what the channel asks of it is to describe an upload of this client and read its bytes.
 */
function uploadsInMemory() {
  const stored = new Map<string, { upload: WebUpload; bytes: Uint8Array }>();
  const uploads: WebUploads = {
    async describe({ uploadId, clientId }) {
      const entry = stored.get(uploadId);
      return entry?.upload.clientId === clientId ? entry.upload : undefined;
    },
    async read({ uploadId, clientId, maxBytes }) {
      const entry = stored.get(uploadId);
      if (entry?.upload.clientId !== clientId)
        throw new NexusError({ code: 'attachment_unavailable', message: 'no such upload' });
      if (entry.bytes.byteLength > maxBytes)
        throw new NexusError({ code: 'attachment_too_large', message: 'upload over the cap' });
      return { bytes: entry.bytes, mimeType: entry.upload.mimeType };
    },
  };
  const add = (kind: WebUpload['kind'], mimeType: string): string => {
    const uploadId = `contract-upload-${String(stored.size + 1).padStart(6, '0')}`;
    const bytes = new Uint8Array(128).fill(1);
    stored.set(uploadId, {
      upload: { uploadId, clientId: CLIENT_ID, kind, mimeType, sizeBytes: 128 },
      bytes,
    });
    return uploadId;
  };
  return { uploads, add };
}

// A web client cannot refuse a reply (it is queued and replayed on resume), so the refused-send
// case skips; the web has no groups, so the group-gate case skips on `groups: false`.
describeChannelContract({
  name: 'web',
  async start(sink) {
    const store = uploadsInMemory();
    const harness = await startHarness({ uploads: store.uploads });
    harness.setSink(sink);
    const clients = [await TestClient.greeted(harness.url, CLIENT_ID)];
    let sent = 0;
    // What the web client sends for a file it uploaded; audio recorded in the page is a voice note.
    const attachmentFrame = (kind: MediaKind) => {
      if (kind === 'voice') return { uploadId: store.add('audio', 'audio/webm'), voice: true };
      if (kind === 'image') return { uploadId: store.add('image', 'image/png') };
      if (kind === 'audio') return { uploadId: store.add('audio', 'audio/mpeg') };
      if (kind === 'document') return { uploadId: store.add('document', 'application/pdf') };
      throw new Error(`the web client uploads no ${kind}`);
    };
    const frames = () => clients.flatMap((client) => client.eventFrames());
    return {
      channel: harness.channel,
      async send(message) {
        sent += 1;
        const frame = {
          type: 'message',
          clientMessageId: `m-${sent}`,
          conversationId: 'contract',
          text: message.text,
          ...(message.media ? { attachments: [attachmentFrame(message.media)] } : {}),
        };
        clients.at(-1)!.send(frame);
        return frame;
      },
      async redeliver(handle) {
        clients.at(-1)!.send(handle);
      },
      received: (conversationId) =>
        frames().flatMap((frame) =>
          frame.conversationId === conversationId && frame.event.type === 'reply.end'
            ? [frame.event.text]
            : [],
        ),
      files: (conversationId) =>
        frames().filter(
          (frame) =>
            frame.conversationId === conversationId &&
            frame.event.type === 'reply.media' &&
            frame.event.media.base64 !== '',
        ).length,
      edits: () => 0,
      typing: () => frames().filter((frame) => frame.event.type === 'typing').length,
      async dropConnection() {
        await clients.at(-1)!.close();
        clients.push(await TestClient.greeted(harness.url, CLIENT_ID));
      },
      async close() {
        for (const client of clients) await client.close();
        await harness.close();
      },
    };
  },
});
