import type { MemoryCategory, MemorySource } from '@nexus/protocol';
import { type AdminApiOptions, callAdminApi } from './admin-api.ts';

/** One memory as the Memory panel shows it. */
export interface MemoryView {
  id: string;
  content: string;
  category: MemoryCategory;
  source: MemorySource;
  createdAt: number;
  updatedAt: number;
  /** The channel of the conversation it was learned in (`telegram`, `web`…), when known. */
  learnedOn?: string;
}

/** The gateway's `/api/memory` for this browser: the token, and the client id naming the web person. */
export interface PersonMemoryOptions extends AdminApiOptions {
  clientId: string;
}

const headersOf = (options: PersonMemoryOptions) => ({ 'x-nexus-client': options.clientId });

/** What Nexus remembers about this web person, newest first, or the best matches for `query`. */
export async function listMemories(options: PersonMemoryOptions, query = ''): Promise<MemoryView[]> {
  const search = query.trim() ? `?q=${encodeURIComponent(query.trim())}` : '?limit=200';
  const body = (await callAdminApi(options, `/api/memory${search}`, { headers: headersOf(options) })) as {
    memories: MemoryView[];
  };
  return body.memories;
}

/** Corrects one memory in place: the gateway keeps its id and the date it was learned. */
export async function editMemory(
  options: PersonMemoryOptions,
  id: string,
  change: { content: string; category?: MemoryView['category'] },
): Promise<MemoryView> {
  const body = (await callAdminApi(options, `/api/memory/${encodeURIComponent(id)}`, {
    method: 'PUT',
    headers: headersOf(options),
    body: JSON.stringify(change),
  })) as { memory: MemoryView };
  return body.memory;
}

export async function deleteMemory(options: PersonMemoryOptions, id: string): Promise<void> {
  await callAdminApi(options, `/api/memory/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    headers: headersOf(options),
  });
}

/** Every memory as JSON Lines (one JSON object per line, every field), for a download. */
export async function exportMemories(options: PersonMemoryOptions): Promise<string> {
  const origin = new URL(options.url.replace(/^ws(s?):/, 'http$1:')).origin;
  const response = await (options.fetch ?? globalThis.fetch)(`${origin}/api/memory/export`, {
    headers: {
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...headersOf(options),
    },
    cache: 'no-store',
    credentials: options.token === undefined ? 'same-origin' : 'omit',
  });
  if (!response.ok) throw new Error(`The gateway answered ${response.status} to the export.`);
  return response.text();
}
