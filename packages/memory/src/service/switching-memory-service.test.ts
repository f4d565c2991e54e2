import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteMemoryStore } from '../sqlite/sqlite-memory-store.ts';
import { MemoryService } from './memory-service.ts';
import { SwitchingMemoryService } from './switching-memory-service.ts';

const stores: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

function serviceOnItsOwnStore() {
  const store = createSqliteMemoryStore({ path: ':memory:' });
  stores.push(store);
  return new MemoryService({ store });
}

describe('SwitchingMemoryService.holdWrites', () => {
  it('waits for writes under way, holds new ones until the work is done, then sends them to the service switched to', async () => {
    const old = serviceOnItsOwnStore();
    const next = serviceOnItsOwnStore();
    const service = new SwitchingMemoryService({ initial: old, pendingReason: () => 're-indexing' });
    const order: string[] = [];
    let during: Promise<unknown> | undefined;

    const underWay = service.add({ userId: 'ada', content: 'Plays the cello' });
    const held = service.holdWrites(async () => {
      order.push('work starts');
      // Told, deleted and forgotten while the work runs: none of it may reach the old service.
      during = Promise.all([
        service.add({ userId: 'ada', content: 'Moved to Lisbon' }),
        service.reset({ userId: 'bob' }),
      ]).then(() => order.push('told during'));
      // The add under way has finished first; reads go on meanwhile, on the old service.
      expect((await service.list({ userId: 'ada' })).map((memory) => memory.content)).toEqual([
        'Plays the cello',
      ]);
      await new Promise((resolve) => setImmediate(resolve));
      order.push('work ends');
      service.switchTo(next);
    });
    await Promise.all([underWay, held]);
    await during;

    expect(order).toEqual(['work starts', 'work ends', 'told during']);
    expect((await old.list({ userId: 'ada' })).map((memory) => memory.content)).toEqual(['Plays the cello']);
    expect((await next.list({ userId: 'ada' })).map((memory) => memory.content)).toEqual(['Moved to Lisbon']);
    expect((await service.health()).search).toBe('lexical');
  });

  it('lets writes through again when the work fails, to the service still current', async () => {
    const old = serviceOnItsOwnStore();
    const service = new SwitchingMemoryService({ initial: old, pendingReason: () => 're-indexing' });
    let during: Promise<unknown> | undefined;
    await expect(
      service.holdWrites(async () => {
        during = service.add({ userId: 'ada', content: 'Moved to Lisbon' });
        throw new Error('the switch failed');
      }),
    ).rejects.toThrow('the switch failed');
    await during;
    expect((await old.list({ userId: 'ada' })).map((memory) => memory.content)).toEqual(['Moved to Lisbon']);
  });
});
