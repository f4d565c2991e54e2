/**
 * Each person's last activity as this process knows it, so a turn does not write
 * `person_activity` (and wait for that commit before its memory step) when the file was brought
 * up to date a moment ago. `latest` is the person's newest activity seen here; `recorded` what the
 * file holds, which lags `latest` by less than `writeIntervalMs`: a person active every few
 * seconds costs one write a minute instead of one a turn. The answers stay exact (the activity
 * before this one, never moving back in time); what a crash can lose is the last interval of
 * the record, which only decides whether someone was away for days ("welcome back"). The owner
 * empties the copy when another connection commits, and writes what is unwritten on close.
 */
export class RecentPersonActivity {
  readonly #known = new Map<string, { recorded: number; latest: number }>();
  readonly #writeIntervalMs: number;
  readonly #maxPeople: number;

  constructor(options: { writeIntervalMs: number; maxPeople?: number }) {
    this.#writeIntervalMs = options.writeIntervalMs;
    this.#maxPeople = options.maxPeople ?? 10_000;
  }

  /**
   * The person's activity before `at`, answered here when the file is fresh enough (`at` is
   * then taken as seen); undefined when the file must be written (and read) instead.
   */
  answer(userId: string, at: number): { before: number } | undefined {
    const known = this.#known.get(userId);
    if (known === undefined) return undefined;
    const latest = Math.max(known.latest, at);
    if (latest - known.recorded >= this.#writeIntervalMs) return undefined;
    const before = known.latest;
    known.latest = latest;
    return { before };
  }

  /**
   * After a committed write of `at` that found `stored` in the file: keeps the person's record
   * and returns their activity before `at` (the newer of the file's and this process's).
   */
  written(userId: string, at: number, stored: number | undefined): number | undefined {
    const known = this.#known.get(userId);
    const before = known === undefined ? stored : Math.max(stored ?? known.latest, known.latest);
    const recorded = Math.max(at, stored ?? at, known?.recorded ?? at);
    if (known === undefined && this.#known.size >= this.#maxPeople) this.#known.clear();
    this.#known.set(userId, { recorded, latest: Math.max(recorded, known?.latest ?? recorded) });
    return before;
  }

  /** People whose newest activity the file does not hold yet, with it. */
  unwritten(): Array<{ userId: string; at: number }> {
    const pending: Array<{ userId: string; at: number }> = [];
    for (const [userId, known] of this.#known) {
      if (known.latest > known.recorded) pending.push({ userId, at: known.latest });
    }
    return pending;
  }

  clear(): void {
    this.#known.clear();
  }
}
