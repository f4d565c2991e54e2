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
    // Seconds later in the same minute, the next minute, another zone, and back: each as Intl says.
    const at = Date.parse('2026-03-29T00:59:10Z'); // Lisbon moves to summer time at 01:00 UTC
    expect(formatZonedTime(at, 'Europe/Lisbon')).toBe('2026-03-29 00:59 (Sunday)');
    expect(formatZonedTime(at + 49_000, 'Europe/Lisbon')).toBe('2026-03-29 00:59 (Sunday)');
    expect(formatZonedTime(at + 50_000, 'Europe/Lisbon')).toBe('2026-03-29 02:00 (Sunday)');
    expect(formatZonedTime(at + 50_000, 'Asia/Kathmandu')).toBe('2026-03-29 06:45 (Sunday)');
    expect(formatZonedTime(at, 'Europe/Lisbon')).toBe('2026-03-29 00:59 (Sunday)');
    // Before whole-minute offsets everywhere: Monrovia in 1970 was UTC-0:44:30.
    expect(formatZonedTime(Date.parse('1970-06-01T12:00:00Z'), 'Africa/Monrovia')).toBe(
      '1970-06-01 11:15 (Monday)',
    );
    expect(formatZonedTime(Date.parse('1970-06-01T12:00:40Z'), 'Africa/Monrovia')).toBe(
      '1970-06-01 11:16 (Monday)',
    );
    expect(isValidTimeZone('Europe/Lisbon')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});
