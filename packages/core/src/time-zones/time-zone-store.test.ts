import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteScheduleStore, type ScheduleStore } from '../schedules/schedule-store.ts';

const stores: ScheduleStore[] = [];
const directories: string[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** Two connections to one schedules file: the gateway's and another process's. */
function gatewayAndOther(): { gateway: ScheduleStore; other: ScheduleStore } {
  const directory = mkdtempSync(join(tmpdir(), 'nexus-zones-'));
  directories.push(directory);
  const path = join(directory, 'schedules.sqlite');
  const open = () => createSqliteScheduleStore({ path, defaultTimeZone: 'UTC', now: () => 1_000 });
  const gateway = open();
  const other = open();
  stores.push(gateway, other);
  return { gateway, other };
}

const nextPassOfTheEventLoop = () => new Promise((resolve) => setImmediate(resolve));

describe('time zones', () => {
  it('answers a zone set or forgotten in this process at once, though reads are kept between turns', () => {
    const { gateway } = gatewayAndOther();
    const zones = gateway.timeZones;
    expect(zones.zoneOf('web:a')).toBe('UTC');
    zones.set('web:a', 'europe/lisbon');
    expect(zones.storedZoneOf('web:a')).toBe('Europe/Lisbon');
    expect(zones.zoneOf('web:a')).toBe('Europe/Lisbon');
    gateway.forget('web:a');
    expect(zones.storedZoneOf('web:a')).toBeUndefined();
    expect(zones.zoneOf('web:a')).toBe('UTC');
  });

  it('follows a zone set or forgotten by another connection from the next pass of the event loop', async () => {
    const { gateway, other } = gatewayAndOther();
    expect(gateway.timeZones.zoneOf('web:a')).toBe('UTC');
    other.timeZones.set('web:a', 'Asia/Tokyo');
    await nextPassOfTheEventLoop();
    expect(gateway.timeZones.zoneOf('web:a')).toBe('Asia/Tokyo');
    other.forget('web:a');
    await nextPassOfTheEventLoop();
    expect(gateway.timeZones.storedZoneOf('web:a')).toBeUndefined();
  });
});
