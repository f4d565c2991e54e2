import { MAX_REPLY_MEDIA_BYTES, type ReplyMedia } from '@nexus/protocol';

/** Files one reply may carry; more are dropped with a warning rather than flooding the chat. */
export const MAX_REPLY_MEDIA_PER_TURN = 10;

/** A file the model itself generated (the AI SDK's `file` stream part). */
export function replyMediaOfGeneratedFile(
  file: { base64: string; mediaType: string },
  index: number,
): ReplyMedia | undefined {
  return mediaOf(file.base64, file.mediaType, undefined, `file-${index + 1}`);
}

/**
 * Images and files inside a tool's result, in the MCP content shape every tool server uses:
 * `{ content: [{ type: 'image', data, mimeType } | { type: 'resource', resource: { blob, mimeType, uri } }] }`.
 * Text parts stay for the model; only binary parts become reply media.
 */
export function replyMediaOfToolOutput(output: unknown, firstIndex: number): ReplyMedia[] {
  if (!output || typeof output !== 'object') return [];
  const content = (output as { content?: unknown }).content;
  if (!Array.isArray(content)) return [];
  const found: ReplyMedia[] = [];
  for (const part of content as Record<string, unknown>[]) {
    if (!part || typeof part !== 'object') continue;
    const index = firstIndex + found.length;
    if ((part.type === 'image' || part.type === 'audio') && typeof part.data === 'string') {
      const media = mediaOf(part.data, String(part.mimeType ?? ''), undefined, `file-${index + 1}`);
      if (media) found.push(media);
    } else if (part.type === 'resource' && part.resource && typeof part.resource === 'object') {
      const resource = part.resource as { blob?: unknown; mimeType?: unknown; uri?: unknown };
      if (typeof resource.blob !== 'string') continue;
      const name = typeof resource.uri === 'string' ? resource.uri.split('/').pop() : undefined;
      const media = mediaOf(resource.blob, String(resource.mimeType ?? ''), name, `file-${index + 1}`);
      if (media) found.push(media);
    }
  }
  return found;
}

function mediaOf(
  base64: string,
  mimeType: string,
  name: string | undefined,
  fallbackName: string,
): ReplyMedia | undefined {
  const type = mimeType.trim().toLowerCase() || 'application/octet-stream';
  // Size from the base64 length: decoding just to measure would copy every file once more.
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const sizeBytes = Math.floor((base64.length * 3) / 4) - padding;
  if (sizeBytes <= 0 || sizeBytes > MAX_REPLY_MEDIA_BYTES) return undefined;
  const kind = type.startsWith('image/') ? 'image' : type.startsWith('audio/') ? 'audio' : 'file';
  return {
    kind,
    mimeType: type,
    name: name && name.length > 0 ? name.slice(0, 512) : `${fallbackName}${extensionOf(type)}`,
    sizeBytes,
    base64,
  };
}

function extensionOf(mimeType: string): string {
  const known: Record<string, string> = {
    'image/png': '.png',
    'image/jpeg': '.jpg',
    'image/gif': '.gif',
    'image/webp': '.webp',
    'application/pdf': '.pdf',
    'text/plain': '.txt',
    'text/csv': '.csv',
    'audio/mpeg': '.mp3',
    'audio/ogg': '.ogg',
  };
  return known[mimeType] ?? '';
}
