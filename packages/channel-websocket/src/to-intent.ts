import type { Attachment, ClientFrame, IntentInput } from '@nexus/protocol';
import type { WebUpload } from './web-uploads.ts';

type ChangeFrame = Extract<ClientFrame, { type: 'message' | 'edit' | 'delete' | 'regenerate' | 'choose' }>;

export interface WebMessageToIntentOptions {
  channelName: string;
  clientId: string;
  displayName?: string;
  frame: ChangeFrame;
  /** The uploads a `message` frame named, already checked to belong to `clientId`. */
  uploads?: readonly { upload: WebUpload; voice: boolean; name?: string }[];
  receivedAt: Date;
}

/** The intent id of a client message: the same for a frame re-sent after a reconnect. */
export function webIntentId(channelName: string, clientId: string, clientMessageId: string): string {
  return `${channelName}:${clientId}:${clientMessageId}`;
}

/**
 * `platformFileId` of a web upload: the uploader's client id travels with the upload id, so the
 * channel checks ownership again when core fetches the bytes. Upload ids hold no `/`.
 */
export function uploadFileId(clientId: string, uploadId: string): string {
  return `${clientId}/${uploadId}`;
}

export function parseUploadFileId(fileId: string): { clientId: string; uploadId: string } | undefined {
  const cut = fileId.lastIndexOf('/');
  if (cut <= 0 || cut === fileId.length - 1) return undefined;
  return { clientId: fileId.slice(0, cut), uploadId: fileId.slice(cut + 1) };
}

/**
 * The Intent for one web `message`, `edit`, `delete`, `regenerate` or `choose` frame. The id is derived from the client's
 * idempotency key, so a frame re-sent after a reconnect is recognised by core as the same change;
 * a delete's id is `<target>:delete`, so deleting twice is one change.
 */
export function webMessageToIntent(options: WebMessageToIntentOptions): IntentInput {
  const { channelName, clientId, displayName, frame } = options;
  const base = {
    channel: channelName,
    conversation: { id: frame.conversationId, kind: 'direct' as const },
    sender: { platformId: clientId, ...(displayName === undefined ? {} : { displayName }) },
    userId: `${channelName}:${clientId}`,
    mentionsAssistant: true,
    receivedAt: options.receivedAt.toISOString(),
  };
  if (frame.type === 'message') {
    return {
      ...base,
      id: webIntentId(channelName, clientId, frame.clientMessageId),
      text: frame.text,
      attachments: (options.uploads ?? []).map(({ upload, voice, name }) =>
        toAttachment(upload, voice, name),
      ),
    };
  }
  const targetIntentId = webIntentId(channelName, clientId, frame.targetClientMessageId);
  if (frame.type === 'regenerate' || frame.type === 'choose') {
    return {
      ...base,
      id: webIntentId(channelName, clientId, frame.clientMessageId),
      text: frame.type === 'regenerate' ? frame.text : '',
      attachments: [],
      revises:
        frame.type === 'regenerate'
          ? { kind: 'regenerate', targetIntentId }
          : { kind: 'choose', targetIntentId, replyId: frame.replyId },
    };
  }
  if (frame.type === 'edit') {
    return {
      ...base,
      id: webIntentId(channelName, clientId, frame.clientMessageId),
      text: frame.text,
      attachments: [],
      revises: { kind: 'edit', targetIntentId },
    };
  }
  return {
    ...base,
    id: `${targetIntentId}:delete`,
    text: '',
    attachments: [],
    revises: { kind: 'delete', targetIntentId },
  };
}

function toAttachment(upload: WebUpload, voice: boolean, name: string | undefined): Attachment {
  const shownName = name ?? upload.name;
  return {
    kind: upload.kind === 'audio' && voice ? 'voice' : upload.kind,
    platformFileId: uploadFileId(upload.clientId, upload.uploadId),
    mimeType: upload.mimeType,
    sizeBytes: upload.sizeBytes,
    ...(shownName === undefined ? {} : { name: shownName }),
  };
}
