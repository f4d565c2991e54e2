import { type FetchAttachmentOptions, type FetchedAttachment, NexusError } from '@nexus/protocol';

/** Hosts Discord serves attachments from; anything else in an attachment URL is refused. */
const DISCORD_CDN_HOSTS = ['cdn.discordapp.com', 'media.discordapp.net'];

/**
 * Downloads a Discord attachment through its CDN URL (signed by Discord, valid about a day),
 * stopping as soon as more than `maxBytes` arrived. Only Discord's CDN hosts are fetched — or
 * the origin of a REST base set for a local stand-in — so an attachment URL cannot point the
 * gateway at another server.
 */
export async function fetchDiscordAttachment(
  options: FetchAttachmentOptions & { allowedOrigin?: string; fetchFunction?: typeof fetch },
): Promise<FetchedAttachment> {
  const { attachment, maxBytes } = options;
  const unavailable = (message: string, retryable: boolean, cause?: unknown) =>
    new NexusError({ code: 'attachment_unavailable', message, retryable, ...(cause ? { cause } : {}) });
  if ((attachment.sizeBytes ?? 0) > maxBytes) throw tooLarge(maxBytes);
  let url: URL;
  try {
    url = new URL(attachment.url ?? '');
  } catch (error) {
    throw unavailable('The Discord attachment has no usable URL.', false, error);
  }
  const allowed =
    (url.protocol === 'https:' && DISCORD_CDN_HOSTS.includes(url.hostname)) ||
    (options.allowedOrigin !== undefined && url.origin === new URL(options.allowedOrigin).origin);
  if (!allowed) throw unavailable(`Refusing to fetch an attachment from ${url.hostname}.`, false);

  let response: Response;
  try {
    response = await (options.fetchFunction ?? fetch)(url, {
      ...(options.abortSignal ? { signal: options.abortSignal } : {}),
    });
  } catch (error) {
    throw unavailable('Discord did not answer the attachment download.', true, error);
  }
  if (response.status === 404 || response.status === 403) {
    throw unavailable('The Discord attachment is no longer available.', false);
  }
  if (!response.ok || !response.body) {
    throw unavailable(
      `Discord answered the attachment download with ${response.status}.`,
      response.status >= 500,
    );
  }
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body.cancel();
    throw tooLarge(maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const chunk = read.value;
    received += chunk.byteLength;
    if (received > maxBytes) {
      // Stop reading: a lying or missing length must not let a file grow past the cap in memory.
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return {
    bytes,
    ...(attachment.mimeType ? { mimeType: attachment.mimeType } : {}),
    ...(attachment.name ? { name: attachment.name } : {}),
  };
}

function tooLarge(maxBytes: number): NexusError {
  return new NexusError({
    code: 'attachment_too_large',
    message: `The attachment is larger than ${maxBytes} bytes.`,
    retryable: false,
  });
}
