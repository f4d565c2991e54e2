import { randomUUID } from 'node:crypto';
import {
  approximateTokenCounter,
  compareStanding,
  contentHash,
  type Memory,
  packContext,
  withStandingFacts,
} from '@nexus/memory';
import type {
  MemoryContextResult,
  MemoryPort,
  MemoryRecord,
  MemoryScope,
  MemorySearchHit,
} from '@nexus/protocol';

/**
 * A small in-memory MemoryPort for core's tests: word-overlap search, exact-duplicate adds,
 * session links, and memory's own Known Facts block (`packContext`, standing facts with
 * `withStandingFacts`) within a characters/4 budget. Every read is filtered by
 * person, like the real service. `calls` records what core asked, abort signals included.
 */
export function createInMemoryMemory(options: { now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  const records = new Map<string, MemoryRecord & { sessions: Set<string> }>();
  const calls: Array<{ method: string; options: Record<string, unknown> }> = [];
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const visible = (userId: string, scopes?: readonly MemoryScope[], sessionId?: string) =>
    [...records.values()].filter(
      (record) =>
        record.userId === userId &&
        (!scopes || scopes.includes(record.scope)) &&
        (!sessionId || record.sessions.has(sessionId)),
    );
  const rank = (candidates: MemoryRecord[], query: string) => {
    const terms = words(query);
    return candidates
      .map((record) => {
        const overlap = [...words(record.content)].filter((word) => terms.has(word)).length;
        return { record, score: overlap / Math.max(1, terms.size) };
      })
      .filter((hit) => hit.score > 0)
      .sort((left, right) => right.score - left.score || right.record.updatedAt - left.record.updatedAt);
  };
  const strip = ({ sessions: _sessions, ...record }: MemoryRecord & { sessions: Set<string> }) => record;

  const port: MemoryPort = {
    async context(request) {
      calls.push({ method: 'context', options: request as unknown as Record<string, unknown> });
      const startedAt = now();
      const user = rank(visible(request.userId, ['user']), request.query);
      const session = request.sessionId
        ? rank(visible(request.userId, undefined, request.sessionId), request.query)
        : [];
      const seen = new Set<string>();
      const candidates: Memory[] = [];
      for (const { record } of [...user, ...session].slice(0, request.limit ?? 20)) {
        if (seen.has(record.id)) continue;
        seen.add(record.id);
        candidates.push(asMemory(record));
      }
      // The block is memory's own: the real packing and fact lines, so core sees what it will get.
      const counter = approximateTokenCounter;
      const at = now();
      const packed = packContext({ candidates, tokenBudget: request.tokenBudget ?? 2000, counter, now: at });
      const standingCandidates = request.standing
        ? visible(request.userId, ['user']).map(asMemory).sort(compareStanding(at))
        : [];
      const finished = request.standing
        ? withStandingFacts(packed, { ...request.standing, candidates: standingCandidates, counter, now: at })
        : packed;
      const result: MemoryContextResult = {
        context: finished.context,
        memoriesUsed: finished.used.length,
        memoryIds: finished.used.map((memory) => memory.id),
        tokensUsed: finished.tokensUsed,
        truncated: packed.truncated,
        scopes: {
          global: { status: 'ok', candidates: 0, durationMs: 0 },
          user: { status: 'ok', candidates: user.length, durationMs: 0 },
          session: request.sessionId
            ? { status: 'ok', candidates: session.length, durationMs: 0 }
            : { status: 'skipped', candidates: 0, durationMs: 0 },
        },
        ...(request.standing
          ? { standing: { status: 'ok' as const, candidates: standingCandidates.length, durationMs: 0 } }
          : {}),
        durationMs: now() - startedAt,
      };
      return result;
    },
    async search(request) {
      calls.push({ method: 'search', options: request as unknown as Record<string, unknown> });
      const hits = rank(visible(request.userId, request.scopes, request.sessionId), request.query);
      return hits.slice(0, request.limit ?? 10).map(
        ({ record, score }): MemorySearchHit => ({
          id: record.id,
          content: record.content,
          score,
          category: record.category,
          source: record.source,
          scope: record.scope,
          createdAt: record.createdAt,
          updatedAt: record.updatedAt,
        }),
      );
    },
    async add(request) {
      calls.push({ method: 'add', options: request as unknown as Record<string, unknown> });
      const userId = request.userId ?? '*';
      const normalised = request.content.trim().toLowerCase().replace(/\s+/gu, ' ');
      const same = [...records.values()].find(
        (record) =>
          record.userId === userId &&
          record.content.trim().toLowerCase().replace(/\s+/gu, ' ') === normalised,
      );
      if (same) {
        if (request.sessionId) same.sessions.add(request.sessionId);
        return { action: 'unchanged', deduplicated: true, memory: strip(same) };
      }
      const at = now();
      const record = {
        id: randomUUID(),
        userId,
        scope: request.scope ?? 'user',
        content: request.content.trim(),
        category: request.category ?? 'fact',
        source: request.source ?? 'inferred',
        createdAt: at,
        updatedAt: at,
        metadata: request.metadata ?? {},
        sessions: new Set(request.sessionId ? [request.sessionId] : []),
        ...(request.sessionId ? { sessionId: request.sessionId } : {}),
      };
      records.set(record.id, record);
      return { action: 'inserted', deduplicated: false, memory: strip(record) };
    },
    async delete(request) {
      calls.push({ method: 'delete', options: request as unknown as Record<string, unknown> });
      const record = records.get(request.id);
      if (!record || record.userId !== request.userId) return { deleted: false };
      records.delete(request.id);
      return { deleted: true };
    },
    async list(request) {
      calls.push({ method: 'list', options: request as unknown as Record<string, unknown> });
      return visible(request.userId, request.scope ? [request.scope] : undefined, request.sessionId)
        .sort((left, right) => right.updatedAt - left.updatedAt)
        .slice(request.offset ?? 0, (request.offset ?? 0) + (request.limit ?? 100))
        .map(strip);
    },
  };
  return {
    port,
    calls,
    /** Every memory of a person, oldest first. */
    memoriesOf: (userId: string) =>
      [...records.values()].filter((record) => record.userId === userId).map(strip),
  };
}

/** A port record as memory's `Memory` (the hash is only used by stores). */
function asMemory(record: MemoryRecord): Memory {
  const { sessions: _sessions, ...plain } = record as MemoryRecord & { sessions?: Set<string> };
  return { ...plain, hash: contentHash(record.content) };
}
