import { conversationRefOf, type Intent } from '@nexus/protocol';
import type { AccessDecision } from '../access/access-decision.ts';
import { ACCESS_MESSAGES } from '../access/access-messages.ts';
import type { ResolvedAccessOptions } from '../access/access-options.ts';
import { displayNameAsText } from '../access/display-name-as-text.ts';
import { escapeMarkdown } from '../access/escape-markdown.ts';
import type { NoticeThrottle } from '../access/notice-throttle.ts';
import { replyWith } from '../access/reply-with.ts';
import { type IdentityRef, identityKey } from '../identity/identity-key.ts';
import type { Identity } from '../identity/identity-store.ts';
import type { LinkCode } from '../identity/link-code-store.ts';
import { looksLikeCode } from '../identity/random-code.ts';

const EVERYONE = '*';

/** `/link` from a person who may talk to the assistant: a new one-time code for their person. */
export function issueLinkCode(
  options: ResolvedAccessOptions,
  intent: Intent,
  identity: Identity,
): AccessDecision {
  const { store, linkCodeTtlMs } = options;
  const issuedIn = conversationRefOf(intent);
  for (let attempt = 0; ; attempt++) {
    try {
      const code = options.generateCode();
      store.linkCodes.issue({
        userId: identity.userId,
        issuedBy: identity,
        issuedIn,
        code,
        ttlMs: linkCodeTtlMs,
      });
      return replyWith(intent, ACCESS_MESSAGES.linkCode(code, linkCodeTtlMs));
    } catch (error) {
      // A code already in use (1 in 850 billion): draw again, but never loop forever on a broken store.
      if (attempt >= 2) throw error;
    }
  }
}

/**
 * `/link CODE` from any direct sender, approved or not. A valid code links nothing by itself:
 * the sender is first told whose account the code belongs to (channel, name, id) and that it
 * joins their whole person to that one, and must answer `/link confirm`; only then is the account
 * that asked for the code told who entered it, and it must answer `/link approve`. So a code
 * someone else sent ("send /link K7QX2M9P to verify") cannot capture the person who types it, and
 * a code phished from its owner cannot be completed without them. `/link deny` cancels on either side.
 *
 * Wrong codes lock the sender out after a few (5 an hour). Wrong codes from everyone together
 * (50 an hour) do not lock anyone out: during such a flood each sender gets one try per window
 * instead of five, so throwaway accounts cannot stop a person typing their own code correctly.
 */
export function enterLinkCode(
  options: ResolvedAccessOptions,
  throttle: NoticeThrottle,
  intent: Intent,
  sender: IdentityRef,
  argument: string,
): AccessDecision {
  const word = argument.toLowerCase();
  if (word === 'approve') return approveLink(options, intent, sender);
  if (word === 'deny') return denyLink(options, intent, sender);
  if (word === 'confirm') return confirmLink(options, intent, sender);
  const { store, logger } = options;
  const senderKey = identityKey(sender);
  const lockedUntil = entryLockedUntil(options, senderKey);
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
      logger.warn(
        { failures: everyone.failures },
        'many wrong link codes overall: one try per sender for now',
      );
    const locked = failure.lockedUntil ?? entryLockedUntil(options, senderKey);
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
  if (!options.notify || !code.issuedIn) return replyWith(intent, ACCESS_MESSAGES.linkUnavailable());
  const displayName = intent.sender.displayName;
  store.linkCodes.claim({
    code: code.code,
    by: sender,
    in: conversationRefOf(intent),
    ...(displayName === undefined ? {} : { displayName }),
    ttlMs: options.linkCodeTtlMs,
  });
  const issuer = store.identities.find(code.issuedBy);
  const others = current ? (store.identities.person(current.userId)?.identities.length ?? 1) - 1 : 0;
  logger.info({ sender: senderKey, userId: code.userId }, 'link code entered: waiting for its confirmation');
  return replyWith(
    intent,
    ACCESS_MESSAGES.linkJoinQuestion({
      issuedOn: code.issuedBy.channel,
      issuer: describeAccount(code.issuedBy, issuer?.displayName),
      otherAccounts: Math.max(0, others),
      confirmWithinMs: options.linkCodeTtlMs,
    }),
  );
}

/** `/link confirm` from the account that entered a code: now the issuer is asked to approve. */
function confirmLink(options: ResolvedAccessOptions, intent: Intent, sender: IdentityRef): AccessDecision {
  const { store, logger } = options;
  const claimed = store.linkCodes.claimedBy(sender);
  if (!claimed) return replyWith(intent, ACCESS_MESSAGES.linkNothingToConfirm());
  if (claimed.claimerConfirmedAt !== undefined) {
    return replyWith(intent, ACCESS_MESSAGES.linkApproveElsewhere());
  }
  const notify = options.notify;
  if (!notify || !claimed.issuedIn) return replyWith(intent, ACCESS_MESSAGES.linkUnavailable());
  store.linkCodes.confirmClaim({ code: claimed.code, ttlMs: options.linkCodeTtlMs });
  const issuedIn = claimed.issuedIn;
  const senderKey = identityKey(sender);
  const who = describeAccount(sender, claimed.claimedDisplayName);
  return replyWith(intent, async () => {
    try {
      await notify(issuedIn, ACCESS_MESSAGES.linkApprovalRequest(sender.channel, who, options.linkCodeTtlMs));
    } catch (error) {
      // Nobody can approve what they never saw: the code is spent, nothing is linked.
      store.linkCodes.consume(claimed);
      logger.warn({ err: error, sender: senderKey }, 'link approval request could not be delivered');
      return ACCESS_MESSAGES.linkNoticeFailed(claimed.issuedBy.channel);
    }
    logger.info({ sender: senderKey, userId: claimed.userId }, 'link code confirmed: waiting for the issuer');
    return ACCESS_MESSAGES.linkWaitingForApproval(claimed.issuedBy.channel, options.linkCodeTtlMs);
  });
}

/** An account as a notice names it: its display name as literal text, then its channel id. */
function describeAccount(account: IdentityRef, displayName: string | undefined): string {
  const key = escapeMarkdown(identityKey(account));
  return displayName ? `${displayNameAsText(displayName)}, ${key}` : key;
}

/** When the sender may not enter codes: their own lockout, or one failed try during a flood. */
function entryLockedUntil(options: ResolvedAccessOptions, senderKey: string): number | undefined {
  const { codeAttempts } = options.store;
  const own = codeAttempts.lockedUntil(senderKey);
  if (own !== undefined) return own;
  const flood = codeAttempts.lockedUntil(EVERYONE);
  if (flood === undefined) return undefined;
  return codeAttempts.failures(senderKey, options.codeAttemptLimits) > 0 ? flood : undefined;
}

/** `/link approve` on the account that issued the code: the link happens now. */
function approveLink(options: ResolvedAccessOptions, intent: Intent, issuer: IdentityRef): AccessDecision {
  const { store } = options;
  const pending = store.linkCodes.awaitingApproval(issuer);
  if (!pending?.claimedBy) return replyWith(intent, ACCESS_MESSAGES.linkNothingToApprove());
  const claimer = pending.claimedBy;
  const identity = store.identities.ensure({
    ...claimer,
    ...(pending.claimedDisplayName === undefined ? {} : { displayName: pending.claimedDisplayName }),
  });
  store.linkCodes.consume(pending);
  if (identity.userId === pending.userId) return replyWith(intent, ACCESS_MESSAGES.linkAlready());
  const linked = store.identities.link({ identity: claimer, toUserId: pending.userId });
  store.codeAttempts.clear(identityKey(claimer));
  options.logger.info(
    { identity: identityKey(claimer), userId: linked.userId, from: identity.userId },
    'identity linked by code, approved by the issuer',
  );
  return replyWith(intent, async () => {
    // The other account learns it is linked; it still works if this message is lost.
    if (pending.claimedIn && options.notify) {
      await options
        .notify({ ...pending.claimedIn, userId: linked.userId }, ACCESS_MESSAGES.linked(issuer.channel))
        .catch((error: unknown) => options.logger.warn({ err: error }, 'link confirmation not delivered'));
    }
    return ACCESS_MESSAGES.linked(claimer.channel);
  });
}

function denyLink(options: ResolvedAccessOptions, intent: Intent, sender: IdentityRef): AccessDecision {
  const { store } = options;
  // The issuer refusing a confirmed claim, or the account that entered a code backing out.
  const pending: LinkCode | undefined =
    store.linkCodes.awaitingApproval(sender) ?? store.linkCodes.claimedBy(sender);
  if (!pending) return replyWith(intent, ACCESS_MESSAGES.linkNothingToApprove());
  store.linkCodes.consume(pending);
  options.logger.warn(
    { by: identityKey(sender), claimer: pending.claimedBy ? identityKey(pending.claimedBy) : undefined },
    'link denied',
  );
  return replyWith(intent, ACCESS_MESSAGES.linkDenied());
}
