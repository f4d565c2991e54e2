import {
  DEFAULT_OUTBOUND_TIMEOUT_MS,
  fetchWithPolicy,
  OutboundFetchError,
  type OutboundFetchPolicy,
  PLATFORM_MEDIA_HOSTS,
} from '@nexus/channel-kit';
import { type FetchAttachmentOptions, type FetchedAttachment, NexusError } from '@nexus/protocol';

/**
 * Downloads a Discord attachment through its CDN URL (signed by Discord, valid about a day)
 * under the shared outbound policy: Discord's CDN hosts over HTTPS, public addresses only, the
 * byte cap and a deadline — or the origin of a REST base set for a local stand-in — so an
 * attachment URL cannot point the gateway at another server.
 */
export async function fetchDiscordAttachment(
  options: FetchAttachmentOptions & {
    allowedOrigin?: string;
    policy?: Partial<Pick<OutboundFetchPolicy, 'resolve' | 'timeoutMs'>>;
  },
): Promise<FetchedAttachment> {
  const { attachment, maxBytes } = options;
  if ((attachment.sizeBytes ?? 0) > maxBytes) throw tooLarge(maxBytes);
  const policy: OutboundFetchPolicy = {
    platform: 'Discord',
    allowedHosts: PLATFORM_MEDIA_HOSTS.discord,
    timeoutMs: options.policy?.timeoutMs ?? DEFAULT_OUTBOUND_TIMEOUT_MS,
    ...(options.allowedOrigin ? { configuredOrigins: [options.allowedOrigin] } : {}),
    ...(options.policy?.resolve ? { resolve: options.policy.resolve } : {}),
  };
  let bytes: Uint8Array;
  try {
    bytes = await fetchWithPolicy(policy, {
      url: attachment.url ?? '',
      maxBytes,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    });
  } catch (error) {
    throw explain(error);
  }
  return {
    bytes,
    ...(attachment.mimeType ? { mimeType: attachment.mimeType } : {}),
    ...(attachment.name ? { name: attachment.name } : {}),
  };
}

function explain(error: unknown): unknown {
  if (!(error instanceof OutboundFetchError)) return error;
  if (error.failure === 'too_large') return tooLarge(0, error);
  if (error.failure === 'status' && (error.status === 404 || error.status === 403))
    return new NexusError({
      code: 'attachment_unavailable',
      message: 'The Discord attachment is no longer available.',
      cause: error,
    });
  return error;
}

function tooLarge(maxBytes: number, cause?: unknown): NexusError {
  return new NexusError({
    code: 'attachment_too_large',
    message: cause instanceof Error ? cause.message : `The attachment is larger than ${maxBytes} bytes.`,
    retryable: false,
    ...(cause ? { cause } : {}),
  });
}
