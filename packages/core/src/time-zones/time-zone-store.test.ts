import { describe, expect, it } from 'vitest';
import { createSqliteScheduleStore } from '../schedules/schedule-store.ts';
import { nextPassOfTheEventLoop, twoConnections } from '../testing/two-connections.ts';

/** Two connections to one schedules file: the gateway's and another process's. */
function gatewayAndOther() {
  const [gateway, other] = twoConnections('schedules.sqlite', (path) =>
    createSqliteScheduleStore({ path, defaultTimeZone: 'UTC', now: () => 1_000 }),
  );
  return { gateway, other };
}

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
