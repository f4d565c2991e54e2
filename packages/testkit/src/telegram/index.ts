export type { BotMessage, RecordedApiCall } from './bot-api-methods.ts';
export type {
  EditMessageOptions,
  FakeTelegramChat,
  FakeTelegramFile,
  PushMessageOptions,
} from './build-message.ts';
export { detectEntities } from './detect-entities.ts';
export type { FakeTelegramFailure } from './fake-failure.ts';
export {
  type FakeTelegram,
  type FakeTelegramOptions,
  type PushedMessage,
  startFakeTelegram,
} from './fake-telegram.ts';
export {
  type ParsedTelegramHtml,
  type ParseTelegramHtmlResult,
  parseTelegramHtml,
} from './parse-telegram-html.ts';
