import { describe, expect, it } from 'vitest';
import { createAccessStore } from '../access/access-store.ts';
import { nextPassOfTheEventLoop, twoConnections } from '../testing/two-connections.ts';

/** Two connections to one access file: the gateway's and, say, the owner's CLI. */
function gatewayAndCli() {
  const [gateway, cli] = twoConnections('access.sqlite', (path) => createAccessStore({ path }));
  return { gateway, cli };
}

describe('conversation generations', () => {
  it('follows /new in this process at once, though reads are kept between turns', () => {
    const { gateway } = gatewayAndCli();
    const conversations = gateway.conversations;
    expect(conversations.generation('web:a')).toBe(0);
    expect(conversations.startNew('web:a')).toBe(1);
    expect(conversations.generation('web:a')).toBe(1);
    expect(conversations.generation('web:b')).toBe(0);

    conversations.rememberOwner({ conversationKey: 'web:b', userId: 'person-1' });
    expect(conversations.startNewForPerson('person-1')).toBe(1);
    expect(conversations.generation('web:b')).toBe(1);
    expect(conversations.generation('web:a')).toBe(1);
  });

  it('follows a restart made by another connection (`nexus users forget`) from the next pass of the event loop', async () => {
    const { gateway, cli } = gatewayAndCli();
    gateway.conversations.rememberOwner({ conversationKey: 'telegram:7', userId: 'person-1' });
    expect(gateway.conversations.generation('telegram:7')).toBe(0);

    expect(cli.conversations.startNewForPerson('person-1')).toBe(1);
    await nextPassOfTheEventLoop();
    expect(gateway.conversations.generation('telegram:7')).toBe(1);

    cli.conversations.startNew('telegram:7');
    await nextPassOfTheEventLoop();
    expect(gateway.conversations.generation('telegram:7')).toBe(2);
  });
});
