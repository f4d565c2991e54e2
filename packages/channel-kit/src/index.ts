export { type BackoffDelayOptions, backoffDelay } from './backoff-delay.ts';
export { type CollectedReply, collectReply, type ReplyErrorEvent } from './collect-reply.ts';
export { createEditStreamer, type EditStreamer, type EditStreamerOptions } from './create-edit-streamer.ts';
export { hasBalancedFences } from './has-balanced-fences.ts';
export { type KeepTypingOptions, keepTyping, type TypingHandle } from './keep-typing.ts';
export { KeyedSerialQueue, type KeyedSerialQueueOptions } from './keyed-serial-queue.ts';
export { QueueFullError } from './queue-full-error.ts';
export { type SplitMessageOptions, splitMessage } from './split-message.ts';
export { TtlSet, type TtlSetOptions } from './ttl-set.ts';
