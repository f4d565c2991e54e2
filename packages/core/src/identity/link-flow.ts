import type { Intent } from '@nexus/protocol';
import type { AccessDecision } from '../access/access-decision.ts';
import { ACCESS_MESSAGES } from '../access/access-messages.ts';
import type { ResolvedAccessOptions } from '../access/access-options.ts';
import type { NoticeThrottle } from '../access/notice-throttle.ts';
import { looksLikeCode } from '../access/random-code.ts';
import { replyWith } from '../commands/reply-with.ts';
import { type IdentityRef, identityKey } from './identity-key.ts';
import type { Identity } from './identity-store.ts';

const EVERYONE = '*';

/** `/link` from a person who may talk to the assistant: a new one-time code for their person. */
export function issueLinkCode(
  options: ResolvedAccessOptions,
  intent: Intent,
  identity: Identity,
): AccessDecision {
  const { store, linkCodeTtlMs } = options;
  for (let attempt = 0; ; attempt++) {
    try {
      const code = options.generateCode();
      store.linkCodes.issue({ userId: identity.userId, issuedBy: identity, code, ttlMs: linkCodeTtlMs });
      return replyWith(intent, ACCESS_MESSAGES.linkCode(code, linkCodeTtlMs));
    } catch (error) {
      // A code already in use (1 in 850 billion): draw again, but never loop forever on a broken store.
      if (attempt >= 2) throw error;
    }
  }
}

/**
 * `/link CODE` and `/link confirm` from any direct sender, approved or not: a valid code proves the
 * sender also holds the account that asked for it. Wrong codes count towards a lockout per sender
 * and for everyone together, so guessing is hopeless (31^8 codes, 5 tries an hour).
 */
export function enterLinkCode(
  options: ResolvedAccessOptions,
  throttle: NoticeThrottle,
  intent: Intent,
  sender: IdentityRef,
  argument: string,
): AccessDecision {
  if (argument.toLowerCase() === 'confirm') return confirmLink(options, intent, sender);
  const { store, logger } = options;
  const senderKey = identityKey(sender);
  const lockedUntil = store.codeAttempts.lockedUntil(senderKey) ?? store.codeAttempts.lockedUntil(EVERYONE);
  if (lockedUntil !== undefined) {
    const message = ACCESS_MESSAGES.linkLocked(lockedUntil - options.now());
    if (throttle.take(`locked:${senderKey}`)) return replyWith(intent, message);
    return { action: 'reject', code: 'rate_limited', message };
  }
  if (!looksLikeCode(argument)) return replyWith(intent, ACCESS_MESSAGES.linkUsage());

  const code = store.linkCodes.findUnclaimed(argument);
  if (!code) {
    const failure = store.codeAttempts.recordFailure(senderKey, options.codeAttemptLimits);
    const everyone = store.codeAttempts.recordFailure(EVERYONE, options.globalCodeAttemptLimits);
    if (everyone.lockedUntil !== undefined)
      logger.warn({ failures: everyone.failures }, 'too many wrong link codes overall: code entry locked');
    const locked = failure.lockedUntil ?? everyone.lockedUntil;
    if (locked !== undefined) {
      logger.warn({ sender: senderKey }, 'too many wrong link codes: code entry locked for this sender');
      throttle.take(`locked:${senderKey}`);
      return replyWith(intent, ACCESS_MESSAGES.linkLocked(locked - options.now()));
    }
    return replyWith(intent, ACCESS_MESSAGES.linkCodeWrong());
  }
  const current = store.identities.find(sender);
  if (current?.userId === code.userId) {
    store.linkCodes.consume(code);
    return replyWith(intent, ACCESS_MESSAGES.linkAlready());
  }
  store.linkCodes.claim({ code: code.code, by: sender, ttlMs: options.linkCodeTtlMs });
  return replyWith(intent, ACCESS_MESSAGES.linkConfirm(code.issuedBy.channel, options.linkCodeTtlMs));
}

function confirmLink(options: ResolvedAccessOptions, intent: Intent, sender: IdentityRef): AccessDecision {
  const { store } = options;
  const claimed = store.linkCodes.claimedBy(sender);
  if (!claimed) return replyWith(intent, ACCESS_MESSAGES.linkNothingPending());
  const identity = store.identities.ensure({
    ...sender,
    ...(intent.sender.displayName === undefined ? {} : { displayName: intent.sender.displayName }),
  });
  store.linkCodes.consume(claimed);
  if (identity.userId === claimed.userId) return replyWith(intent, ACCESS_MESSAGES.linkAlready());
  const linked = store.identities.link({ identity: sender, toUserId: claimed.userId });
  store.codeAttempts.clear(identityKey(sender));
  options.logger.info(
    { identity: identityKey(sender), userId: linked.userId, from: identity.userId },
    'identity linked by code',
  );
  return replyWith({ ...intent, userId: linked.userId }, ACCESS_MESSAGES.linked(claimed.issuedBy.channel));
}
