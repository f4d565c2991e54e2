// The shared limits every adapter needs, re-exported so channels keep one dependency.
export {
  type BackoffDelayOptions,
  backoffDelay,
  TokenBucket,
  type TokenBucketOptions,
} from '@nexus/limits-kit';
export { type CollectedReply, collectReply, type ReplyErrorEvent } from './collect-reply.ts';
export { createEditStreamer, type EditStreamer, type EditStreamerOptions } from './create-edit-streamer.ts';
export { refuseAfterBody } from './discard-body.ts';
export { type FetchWithPolicyOptions, fetchWithPolicy } from './fetch-with-policy.ts';
export { type GroupMessages, passesGroupGate, passesRevisionGate } from './group-gate.ts';
export { hasBalancedFences } from './has-balanced-fences.ts';
export { isPublicAddress } from './is-public-address.ts';
export { type KeepTypingOptions, keepTyping, type TypingHandle } from './keep-typing.ts';
export { KeyedSerialQueue, type KeyedSerialQueueOptions } from './keyed-serial-queue.ts';
export { formatBytes, mediaNotSentNote, mediaTooLargeNote } from './media-too-large-note.ts';
export { OutboundFetchError, type OutboundFetchFailure } from './outbound-fetch-error.ts';
export {
  DEFAULT_OUTBOUND_TIMEOUT_MS,
  isAllowedHost,
  type OutboundFetchPolicy,
  PLATFORM_MEDIA_HOSTS,
} from './outbound-fetch-policy.ts';
export { QueueFullError } from './queue-full-error.ts';
export { type ImageDimensions, readImageDimensions } from './read-image-dimensions.ts';
export { renderDiscordMarkdown } from './render-discord-markdown.ts';
export { renderTelegramHtml } from './render-telegram-html.ts';
export { renderWhatsAppText } from './render-whatsapp-text.ts';
export {
  asEditIntent,
  type DeleteIntentOptions,
  deleteIntentId,
  deleteIntentOf,
  editIntentId,
} from './revision-intent.ts';
export { type SplitMessageOptions, splitMessage } from './split-message.ts';
export { TtlSet, type TtlSetOptions } from './ttl-set.ts';
export { wasIntentTaken } from './was-intent-taken.ts';
