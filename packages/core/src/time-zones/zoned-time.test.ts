import { describe, expect, it } from 'vitest';
import { formatZonedTime, isValidTimeZone, parseZonedTime } from './zoned-time.ts';

describe('zoned time', () => {
  it('reads a wall-clock time in the person’s zone, across daylight saving', () => {
    // Lisbon is UTC+1 in summer and UTC+0 in winter.
    expect(new Date(parseZonedTime('2026-07-01T09:00', 'Europe/Lisbon')!).toISOString()).toBe(
      '2026-07-01T08:00:00.000Z',
    );
    expect(new Date(parseZonedTime('2026-12-01T09:00:00', 'Europe/Lisbon')!).toISOString()).toBe(
      '2026-12-01T09:00:00.000Z',
    );
    expect(new Date(parseZonedTime('2026-11-26T09:00', 'America/New_York')!).toISOString()).toBe(
      '2026-11-26T14:00:00.000Z',
    );
    // An explicit offset wins over the zone.
    expect(new Date(parseZonedTime('2026-11-26T09:00:00+02:00', 'UTC')!).toISOString()).toBe(
      '2026-11-26T07:00:00.000Z',
    );
    expect(parseZonedTime('tomorrow at nine', 'UTC')).toBeUndefined();
  });

  it('formats an instant as the person reads it and validates zone names', () => {
    expect(formatZonedTime(Date.parse('2026-11-26T14:00:00Z'), 'America/New_York')).toBe(
      '2026-11-26 09:00 (Thursday)',
    );
    expect(isValidTimeZone('Europe/Lisbon')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});
