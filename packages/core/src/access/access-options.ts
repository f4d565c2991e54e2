import { type Intent, type Logger, silentLogger } from '@nexus/protocol';
import type { PersonEraser } from '../identity/person-erasers.ts';
import { randomCode } from '../identity/random-code.ts';
import type { AccessMemoryPort } from './access-decision.ts';
import type { AccessStore } from './access-store.ts';
import type { CodeAttemptLimits } from './code-attempts.ts';
import type { NotifyConversation } from './conversation-notifier.ts';
import type { BucketLimits } from './rate-limiter.ts';

/**
 * A command answered without the model that lives outside access control (`/reminders`,
 * `/timezone`): it runs in the conversation's lane with `intent.userId` already the person, after
 * the same policy checks as any other message, and returns the answer's text.
 */
export type ExtraCommand = (options: {
  intent: Intent;
  argument: string;
  abortSignal: AbortSignal;
}) => Promise<string>;

/** `/name` → handler; names are lower-case letters, digits, `_` or `-`. */
export type ExtraCommands = Readonly<Record<string, ExtraCommand>>;

/**
 * How a channel treats direct messages from people it does not know yet:
 * `pairing` gives them a code for the owner to approve, `allowlist` answers only listed or approved
 * people, `open` answers everyone, `disabled` answers no one.
 */
export type DirectMessagePolicy = 'pairing' | 'allowlist' | 'open' | 'disabled';

export const DIRECT_MESSAGE_POLICIES: readonly DirectMessagePolicy[] = [
  'pairing',
  'allowlist',
  'open',
  'disabled',
];

export interface AccessRateLimits {
  person: BucketLimits;
  global: BucketLimits;
  /** Channels whose messages skip the buckets (the gateway exempts its token-protected web chat). */
  exemptChannels?: string[];
}

export interface AccessControlOptions {
  store: AccessStore;
  /** Per channel name; channels not listed use `defaultDirectMessagePolicy`. */
  directMessagePolicies?: Record<string, DirectMessagePolicy>;
  /** Default `pairing`. */
  defaultDirectMessagePolicy?: DirectMessagePolicy;
  /** Identities always allowed direct messages: `telegram:123456789`, or `telegram:*` for a whole channel. */
  allowlist?: string[];
  /** Groups the assistant answers in: `<channel>:<conversationId>`, `<channel>:*` or `*`. Default none. */
  groupAllowlist?: string[];
  /** Default: 10 at once and 10 a minute per person, 60 at once and 120 a minute overall. `false` turns limits off. */
  rateLimits?: AccessRateLimits | false;
  /** For `/memories` and `/forget-me`; without it they say memory is off. */
  memory?: AccessMemoryPort;
  /**
   * Sends a message to another conversation: how the account that issued a link code is asked to
   * approve the link. Without it, link codes cannot be used.
   */
  notify?: NotifyConversation;
  /** Default 1 hour. */
  pairingCodeTtlMs?: number;
  /**
   * Default 10. A stranger past it still gets a code: the channel's oldest pending request is
   * displaced (its code stops working) and the owner is warned in the log, so a few throwaway
   * accounts holding every slot cannot turn real newcomers away.
   */
  maxPendingPairingPerChannel?: number;
  /**
   * New pairing codes one sender may get in 24 hours (a displaced or expired one counts). Default 3:
   * it bounds how often one account can displace others.
   */
  pairingRequestsPerSenderPerDay?: number;
  /** How often one unapproved sender is told again. Default 5 minutes. */
  noticeIntervalMs?: number;
  /** How long a rejected sender is ignored before they may ask again. Default 24 hours. */
  rejectedCooldownMs?: number;
  /** How long a link code, and then its confirmation, stay valid. Default 10 minutes. */
  linkCodeTtlMs?: number;
  /** Wrong link codes per sender. Default 5 per hour, then locked for an hour. */
  codeAttemptLimits?: CodeAttemptLimits;
  /**
   * Wrong link codes from everyone together. Default 50 per hour; past it, for an hour, each sender
   * gets one try instead of `codeAttemptLimits.maxFailures` (nobody is locked out by others).
   */
  globalCodeAttemptLimits?: CodeAttemptLimits;
  /** What `/forget-me` deletes besides memories and access records: turns, job payloads, Redis data. */
  erasers?: PersonEraser[];
  /** How long `/forget-me` waits for `/forget-me confirm`. Default 5 minutes. */
  forgetConfirmMs?: number;
  /** Commands answered without the model that live outside access control (`/reminders`, `/timezone`). */
  extraCommands?: ExtraCommands;
  now?: () => number;
  generateCode?: () => string;
  logger?: Logger;
}

export type ResolvedAccessOptions = Required<
  Omit<AccessControlOptions, 'memory' | 'rateLimits' | 'directMessagePolicies' | 'notify'>
> & {
  memory?: AccessMemoryPort;
  notify?: NotifyConversation;
  rateLimits: AccessRateLimits | false;
  directMessagePolicies: Record<string, DirectMessagePolicy>;
};

const HOUR_MS = 60 * 60_000;

export const DEFAULT_RATE_LIMITS: AccessRateLimits = {
  person: { burst: 10, perMinute: 10 },
  global: { burst: 60, perMinute: 120 },
};

export function resolveAccessOptions(options: AccessControlOptions): ResolvedAccessOptions {
  return {
    store: options.store,
    directMessagePolicies: options.directMessagePolicies ?? {},
    defaultDirectMessagePolicy: options.defaultDirectMessagePolicy ?? 'pairing',
    allowlist: options.allowlist ?? [],
    groupAllowlist: options.groupAllowlist ?? [],
    rateLimits: options.rateLimits ?? DEFAULT_RATE_LIMITS,
    ...(options.memory ? { memory: options.memory } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    pairingCodeTtlMs: options.pairingCodeTtlMs ?? HOUR_MS,
    maxPendingPairingPerChannel: options.maxPendingPairingPerChannel ?? 10,
    pairingRequestsPerSenderPerDay: options.pairingRequestsPerSenderPerDay ?? 3,
    noticeIntervalMs: options.noticeIntervalMs ?? 5 * 60_000,
    rejectedCooldownMs: options.rejectedCooldownMs ?? 24 * HOUR_MS,
    linkCodeTtlMs: options.linkCodeTtlMs ?? 10 * 60_000,
    codeAttemptLimits: options.codeAttemptLimits ?? { maxFailures: 5, windowMs: HOUR_MS, lockoutMs: HOUR_MS },
    globalCodeAttemptLimits: options.globalCodeAttemptLimits ?? {
      maxFailures: 50,
      windowMs: HOUR_MS,
      lockoutMs: HOUR_MS,
    },
    erasers: options.erasers ?? [],
    forgetConfirmMs: options.forgetConfirmMs ?? 5 * 60_000,
    extraCommands: options.extraCommands ?? {},
    now: options.now ?? Date.now,
    generateCode: options.generateCode ?? randomCode,
    logger: options.logger ?? silentLogger,
  };
}
