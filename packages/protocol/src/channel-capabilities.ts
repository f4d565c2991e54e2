import type { Attachment } from './intent.ts';

/** The attachment kinds a channel can take in or send out. */
export type MediaKind = Attachment['kind'];

/**
 * What a channel can do, declared by the adapter so the gateway and core read it instead of
 * special-casing channel names. The channel contract suite (`@nexus/testkit/channel`) checks the
 * declaration against what the platform fake observes.
 */
export interface ChannelCapabilities {
  /** Replies stream by editing one platform message in place. */
  edits: boolean;
  /** Partial replies are shown as a draft before the final text (the web client's deltas). */
  drafts: boolean;
  /** A typing indicator is kept alive while a reply streams. */
  typing: boolean;
  /** Group conversations exist; unaddressed group messages are gated by the channel. */
  groups: boolean;
  /** Attachment kinds that arrive on intents. */
  mediaIn: readonly MediaKind[];
  /** Attachment kinds a reply can send. */
  mediaOut: readonly MediaKind[];
  /** `qr`: an account is linked from a phone; the adapter exposes `linkState()` and can relink. */
  linking: 'qr' | 'none';
  /** Longest single platform message; longer replies are split below it. Absent: no limit, no split. */
  maxMessageChars?: number;
  /** How Markdown in a reply is rendered for the platform. */
  markdown: 'html' | 'markdown' | 'whatsapp' | 'plain';
  /**
   * Which changes people make to a message they already sent reach core as revision intents
   * (`Intent.revises`): an edit with the new text, a delete with none. Absent: neither; a
   * platform that does not report a change (Telegram sends bots no deletions) says `false`.
   */
  revisions?: ChannelRevisions;
}

/** See `ChannelCapabilities.revisions`. */
export interface ChannelRevisions {
  edits: boolean;
  deletes: boolean;
}

/** Where a phone-linked channel (`linking: 'qr'`) stands: the QR payload or pairing code while waiting. */
export interface ChannelLinkState {
  status: string;
  /** Raw QR payload while awaiting a link; render it as a QR code. */
  qr?: string;
  pairingCode?: string;
  detail?: string;
  updatedAt: string;
}
