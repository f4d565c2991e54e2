import type {
  AnyMessageContent,
  BaileysEventEmitter,
  Contact,
  GroupMetadata,
  MiscMessageGenerationOptions,
  UserFacingSocketConfig,
  WAMessage,
  WAPresence,
} from '@whiskeysockets/baileys';

/**
 * The part of Baileys' `WASocket` the channel uses. Narrow on purpose: tests inject a socket whose
 * `ev` is Baileys' own event buffer, and the real `makeWASocket` result satisfies it unchanged.
 */
export interface WhatsAppSocket {
  readonly ev: Pick<BaileysEventEmitter, 'on' | 'off'>;
  /** The linked account (`id` = phone JID, `lid` = LID), undefined until linked. */
  readonly user: Contact | undefined;
  /** The transport; the watchdog counts its traffic as a sign of life. */
  readonly ws?: {
    on(event: string, listener: (...args: unknown[]) => void): unknown;
    off(event: string, listener: (...args: unknown[]) => void): unknown;
  };
  readonly authState: { creds: { registered: boolean } };
  sendMessage(
    jid: string,
    content: AnyMessageContent,
    options?: MiscMessageGenerationOptions,
  ): Promise<WAMessage | undefined>;
  sendPresenceUpdate(type: WAPresence, toJid?: string): Promise<void>;
  requestPairingCode(phoneNumber: string): Promise<string>;
  /** A group's subject and participants, with who administers it (asked only by `isGroupAdmin`). */
  groupMetadata(jid: string): Promise<GroupMetadata>;
  end(error: Error | undefined): void | Promise<void>;
}

export type WhatsAppSocketConfig = UserFacingSocketConfig;

export type WhatsAppSocketFactory = (config: WhatsAppSocketConfig) => WhatsAppSocket;
