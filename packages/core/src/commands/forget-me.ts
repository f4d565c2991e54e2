import type { Intent } from '@nexus/protocol';
import type { AccessDecision } from '../access/access-decision.ts';
import { ACCESS_MESSAGES } from '../access/access-messages.ts';
import type { ResolvedAccessOptions } from '../access/access-options.ts';
import { displayNameAsText } from '../access/display-name-as-text.ts';
import { escapeMarkdown } from '../access/escape-markdown.ts';
import { replyWith } from '../access/reply-with.ts';
import { type IdentityRef, identityKey } from '../identity/identity-key.ts';
import type { Identity } from '../identity/identity-store.ts';
import { forgetPerson } from './forget-person.ts';

/** One account's `/forget-me`, waiting for its `/forget-me confirm` (and its partners'). */
export interface ForgetRequest {
  userId: string;
  expiresAt: number;
  confirmed: boolean;
}

/**
 * `/forget-me` and `/forget-me confirm`. A person made of several linked accounts is several
 * people's word that they are one: what came from each account is that account's. So nothing is
 * erased until every linked account has sent `/forget-me confirm` within the window; one account
 * (or whoever holds it) cannot erase what the others told the assistant. Requests are keyed by
 * account, not person, so one account's confirmation never stands in for another's.
 */
export function forgetMe(
  options: ResolvedAccessOptions,
  requests: Map<string, ForgetRequest>,
  intent: Intent,
  identity: Identity,
  confirmed: boolean,
): AccessDecision {
  const now = options.now();
  const userId = intent.userId;
  const account = identityKey(identity);
  for (const [key, request] of requests) if (request.expiresAt <= now) requests.delete(key);
  const accounts = options.store.identities.person(userId)?.identities ?? [identity];
  const others = accounts.filter((other) => identityKey(other) !== account);
  if (!confirmed) {
    requests.set(account, { userId, expiresAt: now + options.forgetConfirmMs, confirmed: false });
    return replyWith(intent, ACCESS_MESSAGES.forgetConfirm(options.forgetConfirmMs, others.map(describe)));
  }
  const request = requests.get(account);
  if (request === undefined || request.userId !== userId) {
    return replyWith(intent, ACCESS_MESSAGES.forgetNothingPending());
  }
  request.confirmed = true;
  const waiting = others.filter((other) => {
    const theirs = requests.get(identityKey(other));
    return !(theirs?.confirmed && theirs.userId === userId);
  });
  if (waiting.length > 0) {
    return replyWith(
      intent,
      ACCESS_MESSAGES.forgetWaitingForLinked(waiting.map(describe), request.expiresAt - now),
    );
  }
  for (const each of accounts) requests.delete(identityKey(each));
  return replyWith(intent, async ({ abortSignal }) => {
    const report = await forgetPerson({
      store: options.store,
      ...(options.memory ? { memory: options.memory } : {}),
      erasers: options.erasers,
      userId,
      abortSignal,
      logger: options.logger,
    });
    return ACCESS_MESSAGES.forgotten(report.removed);
  });
}

function describe(account: IdentityRef & { displayName?: string }): string {
  const key = escapeMarkdown(identityKey(account));
  return account.displayName ? `${displayNameAsText(account.displayName)} (${key})` : key;
}
