export interface ReplayLogOptions {
  /** Events kept per conversation. */
  replayLimit: number;
  /** Conversations remembered (owner + events); the least recently used beyond this are forgotten. */
  maxConversations: number;
  /** Approximate bytes of frames kept across all conversations before old events are dropped. */
  maxBytes: number;
  /** Last sequence number issued by a previous run, so numbers keep growing across restarts. */
  initialSeq: number;
}

export type ClaimResult = 'owned' | 'claimed' | 'forbidden';

export interface ReplayResult {
  frames: string[];
  /** False when events after the client's `lastSeq` may be missing from what was replayed. */
  complete: boolean;
  lastSeq: number;
}

interface StoredEvent {
  seq: number;
  frame: string;
  /** Set on a `reply.delta`: the reply it belongs to, whose `reply.end` supersedes it. */
  deltaOf?: string;
}

/** What an appended event is to its reply, for the log to keep only what a resume still needs. */
export type ReplyPart = { deltaOf: string } | { endOf: string };

interface ConversationEntry {
  ownerClientId: string;
  events: StoredEvent[];
  bytes: number;
  /** Highest seq issued before this entry existed: a client that saw one ≤ this saw an older era. */
  createdAfterSeq: number;
  /** Highest seq dropped from `events`; 0 while nothing was dropped. */
  droppedThroughSeq: number;
  lastSeq: number;
  /** How many of `events` are deltas (`deltaOf` set): a reply's end looks for them only then. */
  deltas: number;
}

/**
 * Who owns each web conversation and the recent server frames of it, so a client that lost its
 * socket can resume without gaps or duplicates. Sequence numbers come from one counter for all
 * conversations: per conversation they strictly increase (not contiguous), and a conversation
 * forgotten and met again never reuses a number a client may already hold.
 */
export class ReplayLog {
  readonly #options: ReplayLogOptions;
  readonly #entries = new Map<string, ConversationEntry>();
  #lastIssuedSeq: number;
  #totalBytes = 0;
  #mostRecent: string | undefined;

  constructor(options: ReplayLogOptions) {
    this.#options = options;
    this.#lastIssuedSeq = Math.max(0, Math.floor(options.initialSeq));
  }

  get size(): number {
    return this.#entries.size;
  }

  get totalBytes(): number {
    return this.#totalBytes;
  }

  owner(conversationId: string): string | undefined {
    return this.#entries.get(conversationId)?.ownerClientId;
  }

  /** Makes `clientId` the owner of a conversation nobody holds; refuses anyone else's. */
  claim(conversationId: string, clientId: string): ClaimResult {
    const entry = this.#entries.get(conversationId);
    if (entry === undefined) {
      this.#create(conversationId, clientId);
      return 'claimed';
    }
    if (entry.ownerClientId !== clientId) return 'forbidden';
    this.#touch(conversationId, entry);
    return 'owned';
  }

  /**
   * Drops a conversation's stored events (the person deleted it): true when it is gone or was
   * never held, false when another client owns it (then nothing changes). A later message claims
   * it afresh; seq numbers keep growing, so no client mistakes new events for ones it saw.
   */
  forget(conversationId: string, clientId: string): boolean {
    const owner = this.owner(conversationId);
    if (owner === undefined) return true;
    if (owner !== clientId) return false;
    this.#evict(conversationId);
    return true;
  }

  /**
   * Issues the next seq, stores the frame `build` makes for it, and returns both. A reply's end
   * carries its full text, so once it is stored the reply's deltas are dropped: a resume from
   * before or inside the reply gets its start and its end, which repair the text, and the log
   * holds two or three frames per answered reply instead of one per streamed token. That is not a
   * gap (`complete` stays true); seq numbers may skip anyway.
   */
  append(
    conversationId: string,
    ownerClientId: string,
    build: (seq: number) => string,
    part?: ReplyPart,
  ): StoredEvent {
    const entry = this.#entries.get(conversationId) ?? this.#create(conversationId, ownerClientId);
    this.#touch(conversationId, entry);
    if (part && 'endOf' in part) this.#dropDeltas(entry, part.endOf);
    this.#lastIssuedSeq += 1;
    const stored: StoredEvent = { seq: this.#lastIssuedSeq, frame: build(this.#lastIssuedSeq) };
    if (part && 'deltaOf' in part) {
      stored.deltaOf = part.deltaOf;
      entry.deltas += 1;
    }
    entry.events.push(stored);
    entry.lastSeq = stored.seq;
    entry.bytes += stored.frame.length;
    this.#totalBytes += stored.frame.length;
    while (entry.events.length > this.#options.replayLimit) this.#dropOldest(entry);
    this.#enforceByteBudget(entry);
    return stored;
  }

  /** Frames after `lastSeq`, oldest first. Unknown conversations must be claimed first. */
  replay(conversationId: string, lastSeq: number): ReplayResult {
    const entry = this.#entries.get(conversationId);
    if (entry === undefined) return { frames: [], complete: lastSeq === 0, lastSeq: 0 };
    const frames: string[] = [];
    for (const stored of entry.events) if (stored.seq > lastSeq) frames.push(stored.frame);
    const fromOlderEra = lastSeq > 0 && lastSeq <= entry.createdAfterSeq;
    const fromFuture = lastSeq > entry.lastSeq;
    const complete = lastSeq >= entry.droppedThroughSeq && !fromOlderEra && !fromFuture;
    return { frames, complete, lastSeq: entry.lastSeq };
  }

  #create(conversationId: string, ownerClientId: string): ConversationEntry {
    const entry: ConversationEntry = {
      ownerClientId,
      events: [],
      bytes: 0,
      createdAfterSeq: this.#lastIssuedSeq,
      droppedThroughSeq: 0,
      lastSeq: this.#lastIssuedSeq,
      deltas: 0,
    };
    this.#entries.set(conversationId, entry);
    this.#mostRecent = conversationId;
    while (this.#entries.size > this.#options.maxConversations) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined || oldest === conversationId) break;
      this.#evict(oldest);
    }
    return entry;
  }

  #touch(conversationId: string, entry: ConversationEntry): void {
    if (this.#mostRecent === conversationId) return;
    this.#entries.delete(conversationId);
    this.#entries.set(conversationId, entry);
    this.#mostRecent = conversationId;
  }

  #evict(conversationId: string): void {
    const entry = this.#entries.get(conversationId);
    if (entry === undefined) return;
    this.#totalBytes -= entry.bytes;
    this.#entries.delete(conversationId);
    if (this.#mostRecent === conversationId) this.#mostRecent = undefined;
  }

  /**
   * Removes the reply's deltas. They are usually the newest events (its end follows them), taken
   * off the tail without walking the log, which holds up to `replayLimit` events of a long
   * conversation; only when other deltas are kept too (another reply's, one that never ended) is
   * the whole log compacted, in place.
   */
  #dropDeltas(entry: ConversationEntry, replyId: string): void {
    if (entry.deltas === 0) return;
    const events = entry.events;
    let dropped = 0;
    for (let last = events.at(-1); last?.deltaOf === replyId; last = events.at(-1)) {
      events.pop();
      dropped += last.frame.length;
      entry.deltas -= 1;
    }
    if (entry.deltas > 0) {
      let kept = 0;
      for (const stored of events) {
        if (stored.deltaOf === replyId) {
          dropped += stored.frame.length;
          entry.deltas -= 1;
        } else {
          events[kept] = stored;
          kept += 1;
        }
      }
      events.length = kept;
    }
    entry.bytes -= dropped;
    this.#totalBytes -= dropped;
  }

  #dropOldest(entry: ConversationEntry): void {
    const dropped = entry.events.shift();
    if (dropped === undefined) return;
    if (dropped.deltaOf !== undefined) entry.deltas -= 1;
    entry.droppedThroughSeq = dropped.seq;
    entry.bytes -= dropped.frame.length;
    this.#totalBytes -= dropped.frame.length;
  }

  /** Drops the events (not the ownership) of the least recently used conversations first. */
  #enforceByteBudget(current: ConversationEntry): void {
    if (this.#totalBytes <= this.#options.maxBytes) return;
    if (this.#totalBytes > current.bytes) {
      for (const entry of this.#entries.values()) {
        if (this.#totalBytes <= this.#options.maxBytes) return;
        if (entry === current) continue;
        while (entry.events.length > 0) this.#dropOldest(entry);
      }
    }
    while (this.#totalBytes > this.#options.maxBytes && current.events.length > 1) this.#dropOldest(current);
  }
}
