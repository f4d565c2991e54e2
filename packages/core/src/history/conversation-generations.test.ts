import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AccessStore, createAccessStore } from '../access/access-store.ts';

const stores: AccessStore[] = [];
const directories: string[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** Two connections to one access file: the gateway's and, say, the owner's CLI. */
function gatewayAndCli(): { gateway: AccessStore; cli: AccessStore } {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-generations-'));
  directories.push(directory);
  const path = join(directory, 'access.sqlite');
  const gateway = createAccessStore({ path });
  const cli = createAccessStore({ path });
  stores.push(gateway, cli);
  return { gateway, cli };
}

const nextPassOfTheEventLoop = () => new Promise((resolve) => setImmediate(resolve));

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
