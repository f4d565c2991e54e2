import type { GroupMessages, OutboundFetchPolicy } from '@nexus/channel-kit';
import type { Logger } from '@nexus/protocol';
import type { WhatsAppLinkState } from './link-state.ts';
import type { WhatsAppSocketConfig, WhatsAppSocketFactory } from './whatsapp-socket.ts';

export interface WhatsAppChannelOptions {
  /** SQLite file holding credentials, signal keys, recent messages and the inbound cursor. */
  authPath: string;
  /** `Intent.channel`; default `whatsapp`. */
  name?: string;
  /** Default: Baileys' `makeWASocket`. Tests inject a fake socket here. */
  socketFactory?: WhatsAppSocketFactory;
  waWebSocketUrl?: string;
  /** Link by 8-character code on this phone number (digits with country code) instead of QR. */
  pairingPhoneNumber?: string;
  /** Default: prints the QR code to the terminal. */
  onQr?: (qr: string) => void;
  /** Default: logs the code at warn level so it shows in the console. */
  onPairingCode?: (code: string) => void;
  /** Every link state change, e.g. to push it to the web admin view. */
  onLinkState?: (state: WhatsAppLinkState) => void;
  /** Backoff between reconnects; default 2 s doubling to 60 s, full jitter. */
  reconnect?: { initialMs?: number; maxMs?: number };
  /** How long an open link must last before the backoff resets; default 60 s. */
  stableOpenMs?: number;
  /** Replace a socket with no transport activity for this long; default 120 s. */
  watchdogMs?: number;
  /** Minimum gap between two sends of this account; default 1000 ms. */
  sendPacingMs?: number;
  typingIntervalMs?: number;
  /** Characters per WhatsApp message; default 4000. */
  chunkLength?: number;
  /** How long a reply waits for a dropped link to return; default 30 s. */
  reconnectWaitMs?: number;
  /** Offline (`append`) messages older than this are history, not answered; default 24 h. */
  appendMaxAgeMs?: number;
  /** Which group messages reach core (`group-gate` in channel-kit). Default `mentioned`. */
  groupMessages?: GroupMessages;
  /** How long `start` waits for another process to release the auth file; default 2000 ms. */
  lockWaitMs?: number;
  /**
   * Extra Baileys socket options (timeouts, browser); auth, logger, getMessage and
   * deferDeliveryReceipt are ours.
   */
  socketConfig?: Partial<WhatsAppSocketConfig>;
  /** Pause before handing over again a message core did not take. Default 2000. */
  intakeRetryDelayMs?: number;
  /**
   * A delivery receipt waits for the message to be stored; one the upsert handler never saw is
   * sent after this long. Default 60 000 ms: longer than Baileys holds events in its buffer
   * (30 s at most), so a message still in that buffer never gets its receipt early.
   */
  receiptMaxHoldMs?: number;
  /**
   * Media downloads follow the shared outbound policy with WhatsApp's hosts; here only what an
   * operator or a test may add: `configuredOrigins` (a local media stand-in), a `resolve`
   * function, the deadline (default 60 s).
   */
  mediaDownload?: Partial<Pick<OutboundFetchPolicy, 'configuredOrigins' | 'resolve' | 'timeoutMs'>>;
  logger?: Logger;
  now?: () => number;
  random?: () => number;
}
