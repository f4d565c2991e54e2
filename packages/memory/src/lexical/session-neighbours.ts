/**
 * How much a word counts when it is told by a session neighbour instead of the memory itself,
 * by distance: the turn just before or after 0.5, two turns away 0.25 (halving per step, nothing
 * further). A conversation's turn often leaves its subject to the turns around it ("That's
 * great! What made you pick it?"); half weight keeps a memory's own words first.
 */
export const NEIGHBOUR_WEIGHTS: readonly number[] = [0.5, 0.25];

/**
 * The session neighbours of one person's memories, by rowid: each session's linked memories in
 * the order they were stored (rowid), so a memory's neighbours are the ones told just before and
 * after it in that conversation. A memory linked to several sessions has neighbours in each.
 * Kept in step with the session links (`link`) and deletions (`unlink`), so a deleted or
 * forgotten memory lends no word to the memories that were around it.
 */
export class SessionNeighbours {
  /** Session → its memories' rowids, ascending. */
  readonly #members = new Map<string, number[]>();
  /** Rowid → the sessions it is linked to. */
  readonly #sessionsOf = new Map<number, string[]>();

  /** How many memories have at least one session link. */
  get linkedCount(): number {
    return this.#sessionsOf.size;
  }

  /** Links the memory to the session (again: no change). */
  link(rowid: number, sessionId: string): void {
    const sessions = this.#sessionsOf.get(rowid);
    if (sessions?.includes(sessionId)) return;
    if (sessions) sessions.push(sessionId);
    else this.#sessionsOf.set(rowid, [sessionId]);
    const members = this.#members.get(sessionId);
    if (!members) {
      this.#members.set(sessionId, [rowid]);
      return;
    }
    // Stored in order almost always: the new memory goes last.
    if ((members.at(-1) ?? -1) < rowid) members.push(rowid);
    else members.splice(lowerBound(members, rowid), 0, rowid);
  }

  /** The memory is gone: out of every session it was in. */
  unlink(rowid: number): void {
    const sessions = this.#sessionsOf.get(rowid);
    if (!sessions) return;
    this.#sessionsOf.delete(rowid);
    for (const sessionId of sessions) {
      const members = this.#members.get(sessionId);
      if (!members) continue;
      const position = lowerBound(members, rowid);
      if (members[position] === rowid) members.splice(position, 1);
      if (members.length === 0) this.#members.delete(sessionId);
    }
  }

  /**
   * The memories whose neighbours change when this one is linked, re-stored or unlinked: itself
   * and those within `NEIGHBOUR_WEIGHTS.length` places of it in each of its sessions.
   */
  around(rowid: number): number[] {
    const found = [rowid];
    this.forEachNeighbour(rowid, (neighbour) => found.push(neighbour));
    return found;
  }

  /**
   * Calls `visit(session, place, neighbour)` for each of the memory's sessions (numbered from 0)
   * and each neighbour in it: place 0 and 1 the one just before and after, 2 and 3 two away.
   */
  forEachPlace(rowid: number, visit: (session: number, place: number, neighbour: number) => void): void {
    const sessions = this.#sessionsOf.get(rowid);
    if (!sessions) return;
    sessions.forEach((sessionId, session) => {
      const members = this.#members.get(sessionId);
      if (!members) return;
      const position = lowerBound(members, rowid);
      for (let distance = 1; distance <= NEIGHBOUR_WEIGHTS.length; distance += 1) {
        const before = members[position - distance];
        const after = members[position + distance];
        if (before !== undefined) visit(session, (distance - 1) * 2, before);
        if (after !== undefined) visit(session, (distance - 1) * 2 + 1, after);
      }
    });
  }

  /**
   * Calls `visit` with each neighbour within `NEIGHBOUR_WEIGHTS.length` places of the memory in
   * each of its sessions, and that neighbour's weight.
   */
  forEachNeighbour(rowid: number, visit: (neighbour: number, weight: number) => void): void {
    const sessions = this.#sessionsOf.get(rowid);
    if (!sessions) return;
    for (const sessionId of sessions) {
      const members = this.#members.get(sessionId);
      if (!members) continue;
      const position = lowerBound(members, rowid);
      for (let distance = 1; distance <= NEIGHBOUR_WEIGHTS.length; distance += 1) {
        const weight = NEIGHBOUR_WEIGHTS[distance - 1] as number;
        const before = members[position - distance];
        const after = members[position + distance];
        if (before !== undefined) visit(before, weight);
        if (after !== undefined) visit(after, weight);
      }
    }
  }
}

/** The first index whose value is not below `value` (the list ascending). */
function lowerBound(list: readonly number[], value: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((list[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
