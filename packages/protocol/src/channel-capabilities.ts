import type { Attachment } from './intent.ts';
import type { ReplyMedia } from './reply-media.ts';

/** The attachment kinds a channel can take in. */
export type MediaKind = Attachment['kind'];
/** The kinds of `reply.media` a channel can send. */
export type ReplyMediaKind = ReplyMedia['kind'];

/**
 * What a channel does, declared by its adapter so nothing has to special-case a channel's name.
 * Every field is either read in production or checked against a platform fake — most are both:
 * the channel contract suite (`describeChannelContract` in `@nexus/testkit/channel`) fails an
 * adapter whose declaration differs from what its fake observes. Who reads what:
 * - the gateway: `linking` (the channels API offers link state and relink for `qr`);
 * - core: `mediaIn` (an attachment of an undeclared kind is refused before it is downloaded) and
 *   `mediaOut` (a reply file of an undeclared kind is named at the reply's end instead of sent);
 * - the adapter itself: `maxMessageChars` is the length its reply splitter cuts at;
 * - the contract suite: every field, each against behaviour.
 * A field nobody could honestly read or check is not declared (how Markdown is rendered is the
 * adapter's own business and is documented in its README).
 */
export interface ChannelCapabilities {
  /** Replies stream by editing one platform message in place. */
  edits: boolean;
  /** A typing indicator is shown while a reply is produced. */
  typing: boolean;
  /** Group conversations exist; unaddressed group messages are gated by the channel. */
  groups: boolean;
  /** Attachment kinds that arrive on intents: exactly the kinds the adapter produces. */
  mediaIn: readonly MediaKind[];
  /** `reply.media` kinds the adapter sends as platform files (others would not reach people). */
  mediaOut: readonly ReplyMediaKind[];
  /** `qr`: an account is linked from a phone; the adapter exposes `linkState()` and can relink. */
  linking: 'qr' | 'none';
  /**
   * Longest single platform message: the adapter splits longer replies below it (without breaking
   * code fences). Absent: no limit, one message per reply.
   */
  maxMessageChars?: number;
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
