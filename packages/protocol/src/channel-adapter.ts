import type { ChannelCapabilities, ChannelLinkState } from './channel-capabilities.ts';
import type { Attachment, ConversationRef, Intent, IntentInput } from './intent.ts';
import type { ReplyEvent } from './reply-event.ts';

/**
 * What core says about an intent it was handed. `accepted` means durable: the intent is in core's
 * inbox and will be answered even across a restart, so only then may a channel acknowledge the
 * platform message (move the Telegram offset, ack WhatsApp). A retryable rejection such as
 * `shutting_down` means "not taken": leave the message for the platform to redeliver.
 */
export type IntakeResult =
  | { status: 'accepted' }
  | { status: 'duplicate' }
  | {
      status: 'rejected';
      code: string;
      message: string;
      /** Taking it again later may work (busy store, shutting down): leave it for redelivery. */
      retryable?: boolean;
    };

/** Core's entry point as seen by a channel: adapters push intents, core answers via `deliver`. */
export type IntentSink = (intent: IntentInput) => Promise<IntakeResult>;

/**
 * A person pressed Stop on a reply that is still being written, named by its `replyId` or, before
 * its first words, by the `intentId` it answers. `shownChars` is how much of the reply's text
 * (UTF-16 code units, as streamed) they had been shown; what is stored is cut there.
 */
export type ReplyCancelRequest = {
  channel: string;
  conversationId: string;
  shownChars?: number;
} & ({ replyId: string; intentId?: undefined } | { intentId: string; replyId?: undefined });

/**
 * Core's answer to a Stop: `stopping` when the reply was still being generated (its `reply.end`
 * follows, marked stopped), `not_running` when there is nothing to stop (finished, or unknown).
 * The channel checks first that the conversation is the requester's.
 */
export type CancelSink = (request: ReplyCancelRequest) => 'stopping' | 'not_running';

export interface ChannelStartOptions {
  sink: IntentSink;
  /** Present when core can stop a reply mid-generation (the web chat's Stop). */
  cancel?: CancelSink;
  abortSignal?: AbortSignal;
}

export interface DeliverOptions {
  conversation: ConversationRef;
  events: AsyncIterable<ReplyEvent>;
  abortSignal?: AbortSignal;
}

export interface FetchAttachmentOptions {
  attachment: Attachment;
  /** Stop reading past this many bytes and fail with `attachment_too_large`. */
  maxBytes: number;
  abortSignal?: AbortSignal;
}

/** The bytes of one attachment as the platform served them; core checks the type from the bytes. */
export interface FetchedAttachment {
  bytes: Uint8Array;
  /** What the platform claims; a hint only. */
  mimeType?: string;
  name?: string;
}

export interface ChannelHealth {
  status: 'up' | 'connecting' | 'down' | 'stopped';
  detail?: string;
}

/**
 * A platform connection. Adapters render Markdown for their platform, split long replies at the
 * platform limit, keep typing alive while a reply streams, and reconnect on their own.
 */
export interface ChannelAdapter {
  /** Channel name used in `Intent.channel` and `ConversationRef.channel`. */
  readonly name: string;
  /** What this channel does, held to behaviour by the channel contract suite (see ChannelCapabilities). */
  readonly capabilities: ChannelCapabilities;
  start(options: ChannelStartOptions): Promise<void>;
  /**
   * First half of a graceful stop: take no new platform messages (stop polling, ignore gateway
   * events, refuse frames with a retryable error) and acknowledge nothing more to the platform,
   * while `deliver` keeps working so replies already accepted can finish. `stop()` follows once
   * core is idle. Idempotent. Optional until every adapter implements it.
   */
  stopIntake?(): Promise<void>;
  stop(options?: { abortSignal?: AbortSignal }): Promise<void>;
  /**
   * Consumes the whole event stream; resolves when the reply was delivered (or given up on).
   * Threads the reply under `conversation.intentId`, which for an answered edit is the edited
   * message (docs/conversations.md); never sends an edit or delete an answer of its own.
   */
  deliver(options: DeliverOptions): Promise<void>;
  health(): ChannelHealth;
  /** Present when `capabilities.linking` is `qr`: where the phone link stands right now. */
  linkState?(): ChannelLinkState;
  /**
   * Downloads an attachment of an intent this adapter produced, through the platform, never
   * holding more than `maxBytes`. Fails with a NexusError: `attachment_too_large` (over the cap),
   * `attachment_unavailable` (expired, deleted, platform unreachable; `retryable` when a retry
   * may help). Absent: the channel cannot fetch media and core answers that honestly.
   */
  fetchAttachment?(options: FetchAttachmentOptions): Promise<FetchedAttachment>;
  /**
   * Whether the platform says `platformId` administers the group `conversationId` (on Telegram
   * the chat's creator or an administrator, on WhatsApp an admin in the group's metadata, on
   * Discord a member who may manage messages in the channel). Asked
   * only when a member manages what others set in the group (`/reminders cancel`); a failure
   * means no. Absent: the platform's roles are not read, and only the owner manages what others set.
   */
  isGroupAdmin?(options: {
    conversationId: string;
    platformId: string;
    abortSignal?: AbortSignal;
  }): Promise<boolean>;
}

export type { Intent };
