import type { Intent } from '@nexus/protocol';
import type { AccessControl, AccessDecision } from '../access/access-decision.ts';
import { ACCESS_MESSAGES } from '../access/access-messages.ts';
import {
  type AccessControlOptions,
  type DirectMessagePolicy,
  resolveAccessOptions,
} from '../access/access-options.ts';
import { mayReach } from '../access/may-reach.ts';
import { createNoticeThrottle } from '../access/notice-throttle.ts';
import { pairing } from '../access/pairing.ts';
import { createRateLimiter } from '../access/rate-limiter.ts';
import { replyWith } from '../access/reply-with.ts';
import { runCommand } from '../commands/access-commands.ts';
import { type ParsedExtraCommand, parseExtraCommand } from '../commands/extra-commands.ts';
import type { ForgetRequest } from '../commands/forget-me.ts';
import { enterLinkCode } from '../commands/link-flow.ts';
import { createMemoryListings } from '../commands/memory-commands.ts';
import { type ParsedCommand, parseCommand } from '../commands/parse-command.ts';
import type { IdentityRef } from '../identity/identity-key.ts';
import type { Identity } from '../identity/identity-store.ts';
import { groupMemoryId } from '../memory/memory-subject.ts';
import { withConversationGenerations } from '../session-store/generational-session-store.ts';

/**
 * The access step of intake. Decides, without calling the model, whether a message becomes a
 * turn: direct-message policy per channel, group allowlist and mention gating, commands, rate
 * limits. It also resolves the sender to their person, so memory follows linked identities.
 */
export function createAccessControl(input: AccessControlOptions): AccessControl {
  const options = resolveAccessOptions(input);
  const throttle = createNoticeThrottle({ intervalMs: options.noticeIntervalMs, now: options.now });
  const limiter = options.rateLimits
    ? createRateLimiter({ ...options.rateLimits, now: options.now })
    : undefined;
  const exempt = new Set(options.rateLimits ? (options.rateLimits.exemptChannels ?? []) : []);
  const context = {
    options,
    throttle,
    forgetPending: new Map<string, ForgetRequest>(),
    listings: createMemoryListings(),
  };

  function allowed(intent: Intent, identity: Identity, command: Command | undefined): AccessDecision {
    const resolved: Intent = { ...intent, userId: identity.userId };
    if (command && 'run' in command) {
      const { run, argument } = command;
      return replyWith(resolved, ({ abortSignal }) => run({ intent: resolved, argument, abortSignal }));
    }
    if (command) return runCommand(context, resolved, identity, command);
    if (!limiter || exempt.has(intent.channel)) return { action: 'turn', intent: resolved };
    const rate = limiter.take(identity.userId);
    if (rate.allowed) return { action: 'turn', intent: resolved };
    options.logger.info(
      { userId: identity.userId, limit: rate.limit },
      'rate limited: answered without the model',
    );
    return replyWith(
      resolved,
      rate.limit === 'person'
        ? ACCESS_MESSAGES.rateLimitedPerson(rate.retryAfterMs)
        : ACCESS_MESSAGES.rateLimitedGlobal(rate.retryAfterMs),
    );
  }

  function ensureIdentity(intent: Intent, sender: IdentityRef): Identity {
    return options.store.identities.ensure({
      ...sender,
      ...(intent.sender.displayName === undefined ? {} : { displayName: intent.sender.displayName }),
    });
  }

  function direct(intent: Intent, sender: IdentityRef, command: Command | undefined): AccessDecision {
    const policy: DirectMessagePolicy =
      options.directMessagePolicies[intent.channel] ?? options.defaultDirectMessagePolicy;
    if (policy === 'disabled')
      return { action: 'reject', code: 'unauthorized', message: ACCESS_MESSAGES.directDisabled() };
    const known = options.store.identities.find(sender);
    if (
      policy === 'open' ||
      known?.approved ||
      matches(options.allowlist, sender.channel, sender.platformId)
    ) {
      const identity = known ?? ensureIdentity(intent, sender);
      options.store.conversations.rememberOwner({
        conversationKey: `${intent.channel}:${intent.conversation.id}`,
        userId: identity.userId,
      });
      return allowed(intent, identity, command);
    }
    if (command?.name === 'link' && command.argument !== '') {
      return enterLinkCode(options, throttle, intent, sender, command.argument);
    }
    if (policy === 'allowlist')
      return { action: 'reject', code: 'unauthorized', message: ACCESS_MESSAGES.allowlistOnly() };
    return pairing(options, throttle, intent, sender);
  }

  function group(intent: Intent, sender: IdentityRef, command: Command | undefined): AccessDecision {
    const addressed =
      intent.mentionsAssistant || (command !== undefined && command.addressedTo === undefined);
    if (!addressed) return { action: 'ignore', reason: 'not addressed in a group' };
    if (!matches(options.groupAllowlist, intent.channel, intent.conversation.id)) {
      return { action: 'reject', code: 'unauthorized', message: ACCESS_MESSAGES.groupNotAllowed() };
    }
    const identity = options.store.identities.find(sender) ?? ensureIdentity(intent, sender);
    options.store.groupSpeakers.remember({
      groupMemoryId: groupMemoryId(intent.channel, intent.conversation.id),
      userId: identity.userId,
    });
    return allowed(intent, identity, command);
  }

  /**
   * An edit or delete of a message core has seen (core sends edits of unseen messages through the
   * new-message rules instead). The sender must still be someone who may write here, but it needs
   * no mention in a group (the message it changes was addressed), runs no command, and is never
   * refused out loud: nobody is told about pairing because they edited a message.
   */
  function revision(intent: Intent, sender: IdentityRef): AccessDecision {
    const quiet: AccessDecision = {
      action: 'ignore',
      reason: 'revision from a sender who may not write here',
    };
    let identity: Identity | undefined;
    if (intent.conversation.kind === 'direct') {
      const policy = options.directMessagePolicies[intent.channel] ?? options.defaultDirectMessagePolicy;
      const known = options.store.identities.find(sender);
      const allowedHere =
        policy !== 'disabled' &&
        (policy === 'open' ||
          known?.approved ||
          matches(options.allowlist, sender.channel, sender.platformId));
      if (!allowedHere) return quiet;
      identity = known ?? ensureIdentity(intent, sender);
    } else {
      if (!matches(options.groupAllowlist, intent.channel, intent.conversation.id)) return quiet;
      identity = options.store.identities.find(sender) ?? ensureIdentity(intent, sender);
    }
    const resolved: Intent = { ...intent, userId: identity.userId };
    // An edit or a regenerate may cost a model call, so it is rate limited like a message; a
    // delete or a choice of version never is.
    const costly = intent.revises?.kind === 'edit' || intent.revises?.kind === 'regenerate';
    if (!costly || !limiter || exempt.has(intent.channel)) return { action: 'turn', intent: resolved };
    const rate = limiter.take(identity.userId);
    if (rate.allowed) return { action: 'turn', intent: resolved };
    return replyWith(
      resolved,
      rate.limit === 'person'
        ? ACCESS_MESSAGES.rateLimitedPerson(rate.retryAfterMs)
        : ACCESS_MESSAGES.rateLimitedGlobal(rate.retryAfterMs),
    );
  }

  return {
    async check(intent) {
      const sender = { channel: intent.channel, platformId: intent.sender.platformId };
      if (intent.revises) return revision(intent, sender);
      const command = parseCommand(intent.text) ?? parseExtraCommand(intent.text, options.extraCommands);
      return intent.conversation.kind === 'direct'
        ? direct(intent, sender, command)
        : group(intent, sender, command);
    },
    scopeSessionStore(store) {
      return withConversationGenerations(store, options.store.conversations);
    },
    mayReach: (target) => mayReach(options, target),
  };
}

type Command = ParsedCommand | ParsedExtraCommand;

/** Whether `<channel>:<id>` is listed, directly or through `<channel>:*` or `*`. */
function matches(list: readonly string[], channel: string, id: string): boolean {
  if (list.length === 0) return false;
  return list.includes(`${channel}:${id}`) || list.includes(`${channel}:*`) || list.includes('*');
}
