import { DisconnectReason } from '@whiskeysockets/baileys';

/** Why the channel stopped for good; each needs a person, not a retry. */
export type StopReason = 'logged_out' | 'connection_replaced' | 'forbidden' | 'multidevice_mismatch';

export type ReconnectDecision =
  | { action: 'reconnect'; delay: 'immediate' | 'backoff' }
  | { action: 'stop'; reason: StopReason; relink: boolean };

const table: ReadonlyMap<number, ReconnectDecision> = new Map<number, ReconnectDecision>([
  // WhatsApp unlinked this device: the credentials are dead, only a new link helps.
  [DisconnectReason.loggedOut, { action: 'stop', reason: 'logged_out', relink: true }],
  // Another client took the session. Reconnecting would steal it back and loop forever.
  [DisconnectReason.connectionReplaced, { action: 'stop', reason: 'connection_replaced', relink: false }],
  [DisconnectReason.forbidden, { action: 'stop', reason: 'forbidden', relink: true }],
  [DisconnectReason.multideviceMismatch, { action: 'stop', reason: 'multidevice_mismatch', relink: true }],
  // Expected right after linking: the server wants a fresh socket with the new credentials.
  [DisconnectReason.restartRequired, { action: 'reconnect', delay: 'immediate' }],
  [DisconnectReason.connectionClosed, { action: 'reconnect', delay: 'backoff' }],
  [DisconnectReason.connectionLost, { action: 'reconnect', delay: 'backoff' }],
  [DisconnectReason.badSession, { action: 'reconnect', delay: 'backoff' }],
  [DisconnectReason.unavailableService, { action: 'reconnect', delay: 'backoff' }],
]);

const unknownClose: ReconnectDecision = { action: 'reconnect', delay: 'backoff' };

/**
 * What to do after a socket closed with this status code (Baileys' `DisconnectReason`).
 * Pure so the whole policy is one table that tests can walk; transport errors without a known
 * code are treated as transient and retried with backoff.
 */
export function reconnectDecision(statusCode: number | undefined): ReconnectDecision {
  if (statusCode === undefined) return unknownClose;
  return table.get(statusCode) ?? unknownClose;
}

/** Reads the status code Baileys puts on a close (`lastDisconnect.error.output.statusCode`). */
export function disconnectStatusCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const output = (error as { output?: { statusCode?: unknown } }).output;
  return typeof output?.statusCode === 'number' ? output.statusCode : undefined;
}
