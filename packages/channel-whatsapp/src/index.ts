export { type BaileysLogger, toBaileysLogger } from './baileys-logger.ts';
export {
  printQrToTerminal,
  renderQrForTerminal,
  type WhatsAppLinkState,
  type WhatsAppLinkStatus,
} from './link-state.ts';
export { openWhatsAppDatabase } from './open-whatsapp-database.ts';
export {
  disconnectStatusCode,
  type ReconnectDecision,
  reconnectDecision,
  type StopReason,
} from './reconnect-decision.ts';
export { createSqliteAuthState, type SqliteAuthState } from './sqlite-auth-state.ts';
export { createSqliteMessageStore, type MessageStore } from './sqlite-message-store.ts';
export {
  type BotIdentity,
  type MessageMapping,
  parseWhatsAppIntentId,
  type SkipReason,
  whatsAppIntentId,
  whatsAppMessageToIntent,
} from './to-intent.ts';
export { createWhatsAppChannel, type WhatsAppChannel } from './whatsapp-channel.ts';
export type { WhatsAppChannelOptions } from './whatsapp-channel-options.ts';
export type {
  WhatsAppSocket,
  WhatsAppSocketConfig,
  WhatsAppSocketFactory,
} from './whatsapp-socket.ts';
