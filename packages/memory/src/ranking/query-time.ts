import { DAY_MS } from './memory-scoring.ts';

/** What a query says about time: a window the answer was told in, or that it asks about now. */
export interface QueryTime {
  /** Epoch ms, `from` inclusive, `to` exclusive. */
  window?: { from: number; to: number };
  /** "now", "currently", "these days"…: the newest of competing memories is the answer. */
  current: boolean;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };
const CURRENT = /\b(now|nowadays|currently|current|these days|at the moment|at present|anymore|still)\b/iu;
const MONTH =
  /\b(?:in|last|this|during|since|of|early|late|mid)\s+(january|february|march|april|may|june|july|august|september|october|november|december)\b|\b(january|february|march|april|june|july|august|september|october|november|december)\b/iu;
const AGO = /\b(\d{1,2}|an?|one|two|three|four|five|six)\s+(day|week|month)s?\s+ago\b/iu;

/**
 * English time expressions of a query, against `now` (UTC calendar days and months):
 * "yesterday", "today", "last week", "last month", "N days/weeks/months ago", and a month name
 * ("in May", "last March": its latest occurrence up to now; "may" alone is the verb, not a month).
 */
export function queryTime(text: string, now: number): QueryTime {
  const current = CURRENT.test(text);
  const window = timeWindow(text.toLowerCase(), now);
  return window ? { window, current } : { current };
}

function timeWindow(text: string, now: number): QueryTime['window'] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  if (/\byesterday\b/u.test(text)) return { from: today - DAY_MS, to: today };
  if (/\b(today|this morning|tonight|earlier today)\b/u.test(text))
    return { from: today, to: today + DAY_MS };
  if (/\blast week\b/u.test(text)) return { from: today - 14 * DAY_MS, to: today };
  if (/\bthis week\b/u.test(text)) return { from: today - 7 * DAY_MS, to: today + DAY_MS };
  const ago = AGO.exec(text);
  if (ago) {
    const count = Number(ago[1]) || NUMBERS[ago[1] ?? ''] || 1;
    const unit = ago[2] === 'day' ? 1 : ago[2] === 'week' ? 7 : 30;
    const center = today - count * unit * DAY_MS;
    const spread = Math.max(1, Math.round(unit / 2)) * DAY_MS;
    return { from: center - spread, to: center + spread + DAY_MS };
  }
  const date = new Date(now);
  if (/\blast month\b/u.test(text)) return monthWindow(date.getUTCFullYear(), date.getUTCMonth() - 1);
  if (/\bthis month\b/u.test(text)) return monthWindow(date.getUTCFullYear(), date.getUTCMonth());
  const month = MONTH.exec(text);
  const name = month?.[1] ?? month?.[2];
  if (name) {
    const index = MONTHS.indexOf(name);
    const year = index <= date.getUTCMonth() ? date.getUTCFullYear() : date.getUTCFullYear() - 1;
    return monthWindow(year, index);
  }
  return undefined;
}

function monthWindow(year: number, month: number): { from: number; to: number } {
  return { from: Date.UTC(year, month, 1), to: Date.UTC(year, month + 1, 1) };
}

/**
 * Added to a memory's score when the query names a time: `WINDOW_BONUS` when the memory was told
 * within the window (enough to lift it over same-word memories of other dates, not over a memory
 * that matches better by 0.35 relevance or more), and for a question about now an extra
 * `CURRENT_RECENCY`·recency, so a newer statement beats the one it replaced.
 */
export const WINDOW_BONUS = 0.25;
export const CURRENT_RECENCY = 0.3;

export function timeBonus(time: QueryTime, memory: { createdAt: number }, recency: number): number {
  const inWindow = time.window && memory.createdAt >= time.window.from && memory.createdAt < time.window.to;
  return (inWindow ? WINDOW_BONUS : 0) + (time.current ? CURRENT_RECENCY * recency : 0);
}
