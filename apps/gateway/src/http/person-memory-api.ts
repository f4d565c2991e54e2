import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessStore } from '@nexus/core';
import { requestPath } from '@nexus/limits-kit';
import { type Memory, type MemoryApi, MemoryInputError } from '@nexus/memory';
import type { Logger } from '@nexus/protocol';
import { memoryCategorySchema } from '@nexus/protocol';
import { z } from 'zod';
import { digest, sendJson } from './pairing-api.ts';
import { readJsonBody } from './read-json-body.ts';
import { webClientOf } from './web-client-request.ts';

export const MEMORY_API_PATH = '/api/memory';
export { WEB_CLIENT_HEADER } from './web-client-request.ts';

const MAX_BODY_BYTES = 16_384;
const PAGE = 500;
const EXPORT_LIMIT = 20_000;

const editSchema = z.strictObject({
  content: z.string().trim().min(1).max(4_000),
  category: memoryCategorySchema.optional(),
});
const listQuerySchema = z.object({
  q: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
const memoryIdSchema = z.uuid();

/**
 * A memory as the Memory panel gets it, with `learnedOn`: the channel of the conversation it was
 * first told in (session ids are `<channel>:<conversation>`), absent when it came from no
 * conversation (an import, a global fact).
 */
function withProvenance(memory: Memory): Memory & { learnedOn?: string } {
  const channel = memory.sessionId?.split(':', 1)[0];
  return channel ? { ...memory, learnedOn: channel } : memory;
}

/**
 * The web client's Memory panel, behind the gateway token like the other `/api` routes, and scoped
 * to the web person the client is (`X-Nexus-Client`, resolved through linked identities):
 * `GET /api/memory[?q=&limit=&offset=]` lists or searches, `GET /api/memory/export` downloads JSON
 * Lines, `PUT /api/memory/:id` `{content, category?}` edits one in place (same id and creation
 * time), `DELETE /api/memory/:id` deletes one. Listed memories carry `learnedOn` (see withProvenance).
 * Returns false for other paths.
 */
export function createPersonMemoryApi(options: {
  memory: MemoryApi;
  store: AccessStore;
  token: string;
  logger: Logger;
}) {
  const expected = digest(options.token);
  const refuse = (response: ServerResponse, status: number, code: string, message: string) =>
    sendJson(response, status, { error: { code, message } });

  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const path = requestPath(request);
    if (path === undefined) return false;
    if (path !== MEMORY_API_PATH && !path.startsWith(`${MEMORY_API_PATH}/`)) return false;
    const clientId = webClientOf(request, response, expected);
    if (clientId === undefined) return true;
    const userId =
      options.store.identities.find({ channel: 'web', platformId: clientId })?.userId ?? `web:${clientId}`;
    const rest = path.slice(MEMORY_API_PATH.length + 1);
    handle(request, response, userId, rest).catch((error: unknown) => {
      if (error instanceof MemoryInputError) {
        refuse(response, 400, 'bad_request', error.message);
        return;
      }
      options.logger.error({ err: error }, 'memory API failed');
      if (!response.headersSent) refuse(response, 503, 'memory_unavailable', 'Memory could not be reached.');
    });
    return true;
  };

  async function handle(request: IncomingMessage, response: ServerResponse, userId: string, rest: string) {
    const memory = options.memory;
    if (rest === '' && request.method === 'GET') {
      const query = listQuerySchema.safeParse(
        Object.fromEntries(new URL(request.url ?? '/', 'http://localhost').searchParams),
      );
      if (!query.success) {
        refuse(response, 400, 'bad_request', `Invalid ${String(query.error.issues[0]?.path[0] ?? 'query')}.`);
        return;
      }
      const { q, limit, offset } = query.data;
      if (q?.trim()) {
        const hits = await memory.search({ userId, query: q, limit });
        // Search results leave out the session; the panel shows where each fact was learned.
        const found = await Promise.all(hits.map((hit) => memory.get({ userId, id: hit.id })));
        sendJson(response, 200, { memories: found.flatMap((item) => (item ? [withProvenance(item)] : [])) });
        return;
      }
      sendJson(response, 200, {
        memories: (await memory.list({ userId, limit, offset })).map(withProvenance),
      });
      return;
    }
    if (rest === 'export' && request.method === 'GET') {
      const all: Memory[] = [];
      while (all.length < EXPORT_LIMIT) {
        const page = await memory.list({ userId, limit: PAGE, offset: all.length });
        all.push(...page);
        if (page.length < PAGE) break;
      }
      const text = all.map((item) => JSON.stringify(item)).join('\n') + (all.length > 0 ? '\n' : '');
      response.writeHead(200, {
        'content-type': 'application/x-ndjson; charset=utf-8',
        'content-disposition': 'attachment; filename="nexus-memories.jsonl"',
        'content-length': Buffer.byteLength(text),
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      response.end(text);
      return;
    }
    const id = memoryIdSchema.safeParse(rest);
    if (!id.success || (request.method !== 'PUT' && request.method !== 'DELETE')) {
      refuse(
        response,
        404,
        'not_found',
        'Use GET /api/memory, GET /api/memory/export, PUT or DELETE /api/memory/<id>.',
      );
      return;
    }
    const existing = await memory.get({ userId, id: id.data });
    if (!existing) {
      refuse(response, 404, 'not_found', 'There is no such memory of yours.');
      return;
    }
    if (request.method === 'DELETE') {
      const { deleted } = await memory.delete({ userId, id: id.data });
      options.logger.info({ userId, memoryId: id.data }, 'memory deleted in the web Memory panel');
      sendJson(response, 200, { deleted });
      return;
    }
    const raw = await readJsonBody(request, MAX_BODY_BYTES).catch((error: Error) => error);
    if (raw instanceof Error) {
      refuse(response, 400, 'bad_request', raw.message);
      return;
    }
    const body = editSchema.safeParse(raw);
    if (!body.success) {
      refuse(
        response,
        400,
        'bad_request',
        'Send {"content": "<1 to 4,000 characters>", "category"?: "fact"}.',
      );
      return;
    }
    // Edited in place: the id and the creation date stay, so "learned 3 days ago" stays true.
    const updated = await memory.update({
      userId,
      id: existing.id,
      content: body.data.content,
      ...(body.data.category ? { category: body.data.category } : {}),
    });
    if (!updated) {
      refuse(response, 404, 'not_found', 'There is no such memory of yours.');
      return;
    }
    options.logger.info({ userId, memoryId: updated.id }, 'memory edited in the web Memory panel');
    sendJson(response, 200, { memory: withProvenance(updated) });
  }
}
