import { Boom } from '@hapi/boom';
import { DisconnectReason } from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import { disconnectStatusCode, reconnectDecision } from './reconnect-decision.ts';

describe('reconnectDecision', () => {
  it.each([
    ['loggedOut', DisconnectReason.loggedOut, { action: 'stop', reason: 'logged_out', relink: true }],
    [
      'connectionReplaced',
      DisconnectReason.connectionReplaced,
      { action: 'stop', reason: 'connection_replaced', relink: false },
    ],
    ['forbidden', DisconnectReason.forbidden, { action: 'stop', reason: 'forbidden', relink: true }],
    [
      'multideviceMismatch',
      DisconnectReason.multideviceMismatch,
      { action: 'stop', reason: 'multidevice_mismatch', relink: true },
    ],
    ['restartRequired', DisconnectReason.restartRequired, { action: 'reconnect', delay: 'immediate' }],
    ['connectionClosed', DisconnectReason.connectionClosed, { action: 'reconnect', delay: 'backoff' }],
    ['connectionLost', DisconnectReason.connectionLost, { action: 'reconnect', delay: 'backoff' }],
    ['timedOut', DisconnectReason.timedOut, { action: 'reconnect', delay: 'backoff' }],
    ['badSession', DisconnectReason.badSession, { action: 'reconnect', delay: 'backoff' }],
    ['unavailableService', DisconnectReason.unavailableService, { action: 'reconnect', delay: 'backoff' }],
    ['an unknown code', 499, { action: 'reconnect', delay: 'backoff' }],
    ['no code at all', undefined, { action: 'reconnect', delay: 'backoff' }],
  ] as const)('%s (%s)', (_name, statusCode, expected) => {
    expect(reconnectDecision(statusCode)).toEqual(expected);
  });

  it('covers every DisconnectReason Baileys defines', () => {
    const codes = Object.values(DisconnectReason).filter((value) => typeof value === 'number');
    expect(codes.length).toBeGreaterThanOrEqual(9);
    for (const code of codes) {
      const decision = reconnectDecision(code);
      expect(['stop', 'reconnect']).toContain(decision.action);
    }
  });
});

describe('disconnectStatusCode', () => {
  it('reads the code from a Boom error as Baileys emits it', () => {
    const error = new Boom('Connection Failure', { statusCode: DisconnectReason.loggedOut });
    expect(disconnectStatusCode(error)).toBe(401);
  });

  it('is undefined for plain errors and non-errors', () => {
    expect(disconnectStatusCode(new Error('x'))).toBeUndefined();
    expect(disconnectStatusCode(undefined)).toBeUndefined();
    expect(disconnectStatusCode({ output: { statusCode: '401' } })).toBeUndefined();
  });
});
