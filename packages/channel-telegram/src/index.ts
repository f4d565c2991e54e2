export { BlockedConversations } from './blocked-conversations.ts';
export {
  type ChatAddress,
  conversationIdOf,
  intentIdOf,
  messageIdOf,
  parseConversationId,
} from './conversation-address.ts';
export type { DeliveryOutcome } from './deliver-reply.ts';
export type { DownloadedFile } from './download-file.ts';
export { createFileUpdateStore, type FileUpdateStoreOptions } from './file-update-store.ts';
export { createTelegramChannel, type TelegramChannel } from './telegram-channel.ts';
export type { TelegramChannelOptions, TelegramWebhookOptions } from './telegram-channel-options.ts';
export {
  classifyTelegramFailure,
  TelegramAttachmentTooLargeError,
  TelegramBlockedError,
  TelegramConfigError,
  TelegramDeliveryError,
  type TelegramFailureKind,
} from './telegram-errors.ts';
export { type TelegramMessageToIntentOptions, telegramMessageToIntent } from './to-intent.ts';
export { createMemoryUpdateStore, type UpdateStore } from './update-store.ts';
