import type { ConversationRef, ErrorCode, Intent } from '@nexus/protocol';
import type { SessionStore } from '../session-store/session-store.ts';

/** Produces the text of an answer that needs no model (a command, a pairing notice). */
export type AccessReply = (options: { abortSignal: AbortSignal }) => Promise<string>;

/** What intake does with an intent, decided before it reaches a conversation lane. */
export type AccessDecision =
  /** Run a model turn; `intent.userId` is the resolved person. */
  | { action: 'turn'; intent: Intent }
  /** Answer in the conversation's lane (so it keeps its place in line) without calling the model. */
  | { action: 'reply'; intent: Intent; reply: AccessReply }
  /** Take the message and say nothing (unaddressed group chatter). */
  | { action: 'ignore'; reason: string }
  /** Refuse it; the adapter decides whether the sender sees `message`. */
  | { action: 'reject'; code: ErrorCode; message: string };

/** The access step of intake: policies, identities, commands and rate limits. */
export interface AccessControl {
  check(intent: Intent): Promise<AccessDecision>;
  /** The session store turns should use, so `/new` starts the history afresh. */
  scopeSessionStore(store: SessionStore): SessionStore;
  /** Whether a message the assistant starts (a reminder) may still go to this person here. */
  mayReach?(target: ConversationRef): boolean;
}

/**
 * The part of a memory service the commands use. `MemoryService` and the HTTP memory client both
 * fit it, so core does not depend on the memory package.
 */
export interface AccessMemoryPort {
  list(options: {
    userId: string;
    scope?: 'user';
    limit?: number;
    offset?: number;
    abortSignal?: AbortSignal;
  }): Promise<
    ReadonlyArray<{
      id: string;
      content: string;
      category?: string;
      metadata?: Readonly<Record<string, unknown>>;
    }>
  >;
  delete(options: { userId: string; id: string; abortSignal?: AbortSignal }): Promise<{ deleted: boolean }>;
  reset(options: { userId: string; abortSignal?: AbortSignal }): Promise<{ deleted: number }>;
}
