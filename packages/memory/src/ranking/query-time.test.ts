import { describe, expect, it } from 'vitest';
import { queryTime } from './query-time.ts';

const NOW = Date.UTC(2026, 0, 15, 10); // Thursday 15 January 2026, 10:00 UTC
const day = (month: number, date: number, year = 2026) => Date.UTC(year, month, date);

describe('queryTime', () => {
  it('reads yesterday, today and last week as day windows', () => {
    expect(queryTime('What did the dentist say yesterday?', NOW).window).toEqual({
      from: day(0, 14),
      to: day(0, 15),
    });
    expect(queryTime('what happened today', NOW).window).toEqual({ from: day(0, 15), to: day(0, 16) });
    expect(queryTime('Anything from last week?', NOW).window).toEqual({ from: day(0, 1), to: day(0, 15) });
  });

  it('reads a month name as its latest occurrence up to now, and "may" alone as the verb', () => {
    expect(queryTime('What did I do last May?', NOW).window).toEqual({
      from: day(4, 1, 2025),
      to: day(5, 1, 2025),
    });
    expect(queryTime('how was the garage in January', NOW).window).toEqual({
      from: day(0, 1),
      to: day(1, 1),
    });
    expect(queryTime('Trip in december?', NOW).window).toEqual({ from: day(11, 1, 2025), to: day(0, 1) });
    expect(queryTime('may I ask what my job is', NOW).window).toBeUndefined();
    expect(queryTime('last month', NOW).window).toEqual({ from: day(11, 1, 2025), to: day(0, 1) });
  });

  it('reads "N days/weeks ago" as a window around that day', () => {
    const window = queryTime('what did I say two weeks ago', NOW).window;
    expect(window?.from).toBeLessThanOrEqual(day(0, 1));
    expect(window?.to).toBeGreaterThan(day(0, 1));
    expect(window?.to).toBeLessThanOrEqual(day(0, 9));
  });

  it('marks questions about the present, and nothing else', () => {
    expect(queryTime('Where do I live now?', NOW)).toEqual({ current: true });
    expect(queryTime('what is my job these days', NOW).current).toBe(true);
    expect(queryTime('What is my pet called?', NOW)).toEqual({ current: false });
  });
});
