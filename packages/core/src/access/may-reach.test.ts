import { describe, expect, it } from 'vitest';
import { createAccessControl } from '../access-control/access-control.ts';
import { createAccessStore } from './access-store.ts';

function target(
  overrides: { channel?: string; kind?: 'direct' | 'group'; conversationId?: string; userId?: string } = {},
) {
  return {
    channel: overrides.channel ?? 'telegram',
    conversationId: overrides.conversationId ?? '42',
    kind: overrides.kind ?? 'direct',
    intentId: 'telegram:42:7',
    userId: overrides.userId ?? 'telegram:42',
    senderPlatformId: '42',
  };
}

describe('mayReach: may the assistant still speak first here', () => {
  it('follows the DM policy, approval and the group allowlist as they are now, and never creates anything', () => {
    const store = createAccessStore({ path: ':memory:' });
    const pairing = createAccessControl({ store, directMessagePolicies: { telegram: 'pairing' } });
    // Unknown identity: no, and asking created no identity or pairing request.
    expect(pairing.mayReach?.(target())).toBe(false);
    expect(store.identities.find({ channel: 'telegram', platformId: '42' })).toBeUndefined();
    expect(store.pairing.countPending({ channel: 'telegram' })).toBe(0);

    const identity = store.identities.ensure({ channel: 'telegram', platformId: '42' });
    expect(pairing.mayReach?.(target())).toBe(false);
    store.identities.approve({ userId: identity.userId, approvedBy: 'owner' });
    expect(pairing.mayReach?.(target())).toBe(true);
    // The identity now speaks as someone else (linked since): not to the person it was set for.
    expect(pairing.mayReach?.(target({ userId: 'telegram:other' }))).toBe(false);

    expect(
      createAccessControl({ store, directMessagePolicies: { telegram: 'disabled' } }).mayReach?.(target()),
    ).toBe(false);
    const groups = createAccessControl({ store, groupAllowlist: ['telegram:-100'] });
    expect(groups.mayReach?.(target({ kind: 'group', conversationId: '-100' }))).toBe(true);
    expect(groups.mayReach?.(target({ kind: 'group', conversationId: '-200' }))).toBe(false);
    store.close();
  });
});
