export { startFakeWhatsAppMedia, type WhatsAppMediaKind } from './fake-whatsapp-media.ts';
export {
  type FakeWhatsAppConnection,
  type FakeWhatsAppServer,
  type FakeWhatsAppServerBehavior,
  startFakeWhatsAppServer,
} from './fake-whatsapp-server.ts';
export {
  createFakeWhatsAppSocket,
  createFakeWhatsAppSocketFactory,
  type FakeWhatsAppSocket,
  type FakeWhatsAppSocketFactory,
  type RecordedPresence,
  type RecordedSend,
  silentBaileysLogger,
} from './fake-whatsapp-socket.ts';
export {
  buildDirectMediaMessage,
  type WhatsAppIncomingMediaKind,
  whatsAppMediaContent,
} from './whatsapp-media-messages.ts';
export {
  buildDirectMessage,
  buildEditMessage,
  buildEphemeralMessage,
  buildFromMeMessage,
  buildGroupMessage,
  buildNewsletterMessage,
  buildRevokeMessage,
  buildStatusBroadcastMessage,
  buildViewOnceMessage,
  TEST_BOT_LID,
  TEST_BOT_PHONE_JID,
  TEST_BOT_USER,
  whatsAppMessageId,
} from './whatsapp-messages.ts';
