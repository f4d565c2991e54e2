import type { Intent } from '@nexus/protocol';
import { type IdentityRef, identityKey } from '../identity/identity-key.ts';
import type { AccessDecision } from './access-decision.ts';
import { ACCESS_MESSAGES } from './access-messages.ts';
import type { ResolvedAccessOptions } from './access-options.ts';
import type { NoticeThrottle } from './notice-throttle.ts';
import { replyWith } from './reply-with.ts';

const DAY_MS = 24 * 60 * 60_000;

/** An unknown sender under the `pairing` policy: one code per sender, a few per channel at a time. */
export function pairing(
  options: ResolvedAccessOptions,
  throttle: NoticeThrottle,
  intent: Intent,
  sender: IdentityRef,
): AccessDecision {
  const { store, now } = options;
  const senderKey = identityKey(sender);
  const rejectedAt = store.pairing.lastRejectedAt(sender);
  if (rejectedAt !== undefined && now() - rejectedAt < options.rejectedCooldownMs) {
    return { action: 'reject', code: 'unauthorized', message: ACCESS_MESSAGES.pairingDeclined() };
  }
  let request = store.pairing.pendingFor(sender);
  if (!request) {
    const given = store.pairing.countRequestsSince({ ...sender, since: now() - DAY_MS });
    if (given >= options.pairingRequestsPerSenderPerDay) {
      return notice(throttle, intent, senderKey, ACCESS_MESSAGES.pairingBusy());
    }
    makeRoomForPairing(options, sender.channel);
    request = createPairingRequest(options, intent, sender);
    options.logger.info(
      { sender: senderKey, code: request.code },
      `pairing requested: approve with \`nexus pairing approve ${request.code}\``,
    );
    throttle.take(senderKey);
    return replyWith(intent, ACCESS_MESSAGES.pairing(request.code, options.pairingCodeTtlMs));
  }
  return notice(
    throttle,
    intent,
    senderKey,
    ACCESS_MESSAGES.pairing(request.code, request.expiresAt - now()),
  );
}

/**
 * A full channel displaces its oldest pending request rather than refusing the newcomer: refusing
 * would let a few throwaway accounts keep every slot. Each sender gets only a few codes a day, so
 * displacing is bounded too. The owner is warned, since displaced codes stop working.
 */
function makeRoomForPairing(options: ResolvedAccessOptions, channel: string): void {
  const { store } = options;
  while (store.pairing.countPending({ channel }) >= options.maxPendingPairingPerChannel) {
    const displaced = store.pairing.displaceOldest({ channel });
    if (!displaced) return;
    options.logger.warn(
      { channel, displaced: displaced.code, limit: options.maxPendingPairingPerChannel },
      'too many pairing requests waiting: the oldest was displaced (its code no longer works); see `nexus pairing list`',
    );
  }
}

function createPairingRequest(options: ResolvedAccessOptions, intent: Intent, sender: IdentityRef) {
  for (let attempt = 0; ; attempt++) {
    try {
      return options.store.pairing.create({
        ...sender,
        code: options.generateCode(),
        ttlMs: options.pairingCodeTtlMs,
        ...(intent.sender.displayName === undefined ? {} : { displayName: intent.sender.displayName }),
      });
    } catch (error) {
      // A code already in use: draw again, but never loop forever on a broken store.
      if (attempt >= 2) throw error;
    }
  }
}

/** Tells the sender once per interval; in between the message is refused quietly (no bot spam). */
function notice(throttle: NoticeThrottle, intent: Intent, senderKey: string, text: string): AccessDecision {
  if (throttle.take(senderKey)) return replyWith(intent, text);
  return { action: 'reject', code: 'unauthorized', message: text };
}
