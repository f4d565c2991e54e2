const DAY_MS = 86_400_000;

/**
 * How old a memory is, in the words every prompt uses: "today", "yesterday", "3 days ago",
 * "1 week ago", "2 months ago", "1 year ago". Memory's fact lines, core's recall tool and its
 * extraction prompt all say ages this one way, so the model never reads two wordings.
 */
export function describeMemoryAge(ageMs: number): string {
  const days = Math.floor(Math.max(0, ageMs) / DAY_MS);
  if (days === 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  const [count, unit] =
    days < 30
      ? [Math.floor(days / 7), 'week']
      : days < 365
        ? [Math.floor(days / 30), 'month']
        : [Math.floor(days / 365), 'year'];
  return `${count} ${unit}${count === 1 ? '' : 's'} ago`;
}
