import { randomUUID } from 'node:crypto';
import { factLine, KNOWN_FACTS_HEADER, standingOrder } from '../fact-lines.ts';
import type {
  MemoryContextResult,
  MemoryPort,
  MemoryRecord,
  MemoryScopeName,
  MemorySearchHit,
} from '../memory-port.ts';

/**
 * A small in-memory MemoryPort for core's tests: word-overlap search, exact-duplicate adds,
 * session links, a Known Facts block within a characters/4 budget. Every read is filtered by
 * person, like the real service. `calls` records what core asked, abort signals included.
 */
export function createInMemoryMemory(options: { now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  const records = new Map<string, MemoryRecord & { sessions: Set<string> }>();
  const calls: Array<{ method: string; options: Record<string, unknown> }> = [];
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const visible = (userId: string, scopes?: readonly MemoryScopeName[], sessionId?: string) =>
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
      const lines: string[] = [];
      const memoryIds: string[] = [];
      let tokens = Math.ceil(KNOWN_FACTS_HEADER.length / 4);
      let truncated = false;
      for (const { record } of [...user, ...session].slice(0, request.limit ?? 20)) {
        if (seen.has(record.id)) continue;
        seen.add(record.id);
        const line = factLine(record, now());
        const lineTokens = Math.ceil((line.length + 1) / 4);
        if (tokens + lineTokens > (request.tokenBudget ?? 2000)) {
          truncated = true;
          continue;
        }
        tokens += lineTokens;
        lines.push(line);
        memoryIds.push(record.id);
      }
      const result: MemoryContextResult = {
        context: lines.length > 0 ? `${KNOWN_FACTS_HEADER}\n${lines.join('\n')}\n` : '',
        memoriesUsed: lines.length,
        memoryIds,
        tokensUsed: lines.length > 0 ? tokens : 0,
        truncated,
        scopes: {
          global: { status: 'ok', candidates: 0, durationMs: 0 },
          user: { status: 'ok', candidates: user.length, durationMs: 0 },
          session: request.sessionId
            ? { status: 'ok', candidates: session.length, durationMs: 0 }
            : { status: 'skipped', candidates: 0, durationMs: 0 },
        },
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
    async standingFacts(request) {
      calls.push({ method: 'standingFacts', options: request as unknown as Record<string, unknown> });
      return visible(request.userId, ['user']).map(strip).sort(standingOrder(now())).slice(0, request.limit);
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
