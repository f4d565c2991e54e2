/** True when `Intl` knows the IANA zone (`Europe/Lisbon`, `UTC`). */
export function isValidTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The two formatters of a zone, made once: building an `Intl.DateTimeFormat` costs ICU a tenth of
 * a millisecond or more and native memory, and extraction formats "today" after every turn. Zones
 * are few (validated IANA names); the bound only keeps odd input from growing the map.
 */
const formatters = new Map<string, { parts: Intl.DateTimeFormat; weekday: Intl.DateTimeFormat }>();
const FORMATTER_ZONES = 64;

function formattersOf(zone: string): { parts: Intl.DateTimeFormat; weekday: Intl.DateTimeFormat } {
  let zoned = formatters.get(zone);
  if (!zoned) {
    zoned = {
      parts: new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      }),
      weekday: new Intl.DateTimeFormat('en-GB', { weekday: 'long', timeZone: zone }),
    };
    if (formatters.size >= FORMATTER_ZONES) formatters.delete(formatters.keys().next().value as string);
    formatters.set(zone, zoned);
  }
  return zoned;
}

function parts(at: number, zone: string): Record<string, number> {
  const formatted = formattersOf(zone).parts.formatToParts(at);
  const result: Record<string, number> = {};
  for (const part of formatted) if (part.type !== 'literal') result[part.type] = Number(part.value);
  return result;
}

/** The zone's offset from UTC at `at`, in milliseconds (Lisbon in summer: +3 600 000). */
function offsetAt(at: number, zone: string): number {
  const p = parts(at, zone);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return asUtc - Math.floor(at / 1000) * 1000;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?$/;

/**
 * An ISO time as the model writes it, in epoch milliseconds: with an offset or `Z` it is exact;
 * without one it is a wall-clock time in `zone` (so "09:00" means nine in the person's zone).
 * Undefined when it is not a time.
 */
export function parseZonedTime(text: string, zone: string): number | undefined {
  const local = LOCAL.exec(text.trim());
  if (!local) {
    const exact = Date.parse(text);
    return /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text.trim()) && Number.isFinite(exact) ? exact : undefined;
  }
  const [, year, month, day, hour, minute, second] = local.map(Number) as number[];
  const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!, second || 0);
  // Twice: the first guess may sit on the other side of a daylight-saving change.
  let utc = wall - offsetAt(wall, zone);
  utc = wall - offsetAt(utc, zone);
  return utc;
}

/**
 * The last text made per zone and the UTC minute it is for: a turn formats "now" twice (the
 * schedule tool's description, extraction's "today"), ~25 µs each through Intl. Within one UTC
 * minute the text is the same wherever every offset is whole minutes, true of every zone since
 * 1972 (Monrovia's -0:44:30 was the last), so only times after that are kept.
 */
const lastFormatted = new Map<string, { minute: number; text: string }>();
const WHOLE_MINUTE_OFFSETS_SINCE = Date.UTC(1973, 0, 1);

/** "2026-11-26 09:00 (Thursday)" as a person in `zone` reads it. */
export function formatZonedTime(at: number, zone: string): string {
  const minute = Math.floor(at / 60_000);
  const keep = at >= WHOLE_MINUTE_OFFSETS_SINCE;
  const last = keep ? lastFormatted.get(zone) : undefined;
  if (last?.minute === minute) return last.text;
  const p = parts(at, zone);
  const pad = (value: number | undefined) => String(value).padStart(2, '0');
  const weekday = formattersOf(zone).weekday.format(at);
  const text = `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)} (${weekday})`;
  if (keep) {
    if (!lastFormatted.has(zone) && lastFormatted.size >= FORMATTER_ZONES)
      lastFormatted.delete(lastFormatted.keys().next().value as string);
    lastFormatted.set(zone, { minute, text });
  }
  return text;
}

/** "2026-11-22 (Sunday)": the calendar date in `zone`, for "today" in prompts. */
export function zonedCalendarDate(at: number, zone: string): string {
  return formatZonedTime(at, zone).replace(/ \d{2}:\d{2} /, ' ');
}
