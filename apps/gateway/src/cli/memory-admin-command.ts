import { readFile, writeFile } from 'node:fs/promises';
import {
  createMemoryClient,
  GLOBAL_USER_ID,
  type Memory,
  type MemoryApi,
  type MemoryImport,
  MemoryInputError,
  parseMem0Export,
  parseMemoryJsonl,
  readOpenClawMemory,
} from '@nexus/memory';
import { type MemorySource, NexusError, silentLogger } from '@nexus/protocol';
import { openLocalMemoryService } from '../composition/memory/create-gateway-memory.ts';
import type { LoadConfigOptions } from '../config/load-config.ts';
import { type CommandOutput, formatTable } from './command-output.ts';
import { MEMORY_ADMIN_USAGE } from './command-table.ts';
import { EX_CONFIG, loadCommandConfig } from './load-command-config.ts';

export interface MemoryAdminFlags {
  user?: string | undefined;
  global?: boolean | undefined;
  scope?: string | undefined;
  category?: string | undefined;
  source?: string | undefined;
  format?: string | undefined;
  limit?: string | undefined;
}

const PAGE = 1_000;

/** `nexus memory list|add|delete|export|import`: the operator's hands on memory, global facts included. */
export async function memoryAdminCommand(options: {
  args: string[];
  flags: MemoryAdminFlags;
  config: LoadConfigOptions;
  output: CommandOutput;
  fetch?: typeof globalThis.fetch;
}): Promise<number> {
  const { output, flags } = options;
  const [action, ...rest] = options.args;
  if (flags.global && flags.user) {
    output.error('Pass --user or --global, not both.\n');
    return 64;
  }
  const config = loadCommandConfig(options.config, output);
  if (!config) return EX_CONFIG;
  const opened =
    config.memory.mode === 'http'
      ? {
          service: createMemoryClient({
            baseUrl: config.memory.url!,
            apiKey: config.memory.apiKey!,
            ...(options.fetch ? { fetch: options.fetch } : {}),
          }) as MemoryApi,
          close: async () => {},
        }
      : await openLocalMemoryService({
          config,
          logger: silentLogger,
          ...(options.fetch ? { fetch: options.fetch } : {}),
        });
  const person = flags.global ? GLOBAL_USER_ID : flags.user;
  try {
    switch (action) {
      case 'list':
        return await listCommand(opened.service, person, flags, output);
      case 'add':
        return await addCommand(opened.service, person, flags, rest, output);
      case 'delete':
        return await deleteCommand(opened.service, person, rest, output);
      case 'export':
        return await exportCommand(opened.service, person, rest, output);
      default:
        return await importCommand(opened.service, person, flags, rest, output);
    }
  } catch (error) {
    if (error instanceof MemoryInputError) {
      output.error(`${error.message}\n`);
      return 65; // EX_DATAERR
    }
    if (error instanceof NexusError) {
      output.error(`Memory is not reachable: ${error.message}\n`);
      return 69; // EX_UNAVAILABLE
    }
    throw error;
  } finally {
    await opened.close();
  }
}

async function listCommand(
  service: MemoryApi,
  person: string | undefined,
  flags: MemoryAdminFlags,
  output: CommandOutput,
): Promise<number> {
  const limit = flags.limit ? Number(flags.limit) : 100;
  if (!Number.isInteger(limit) || limit < 1) {
    output.error('--limit takes a whole number of at least 1.\n');
    return 64;
  }
  const scope = flags.scope as Memory['scope'] | undefined;
  const memories: Memory[] = [];
  for (const userId of await people(service, person)) {
    memories.push(
      ...(await service.list({ userId, limit: Math.min(limit, PAGE), ...(scope ? { scope } : {}) })),
    );
  }
  const shown = memories.sort((a, b) => b.updatedAt - a.updatedAt).slice(0, limit);
  if (shown.length === 0) {
    output.out('No memories.\n');
    return 0;
  }
  output.out(
    formatTable(
      ['ID', 'PERSON', 'SCOPE', 'CATEGORY', 'SOURCE', 'UPDATED', 'CONTENT'],
      shown.map((memory) => [
        memory.id,
        memory.userId === GLOBAL_USER_ID ? '(global)' : memory.userId,
        memory.scope,
        memory.category,
        memory.source,
        new Date(memory.updatedAt).toISOString().slice(0, 10),
        memory.content.length > 80 ? `${memory.content.slice(0, 79)}…` : memory.content,
      ]),
    ),
  );
  return 0;
}

async function addCommand(
  service: MemoryApi,
  person: string | undefined,
  flags: MemoryAdminFlags,
  words: string[],
  output: CommandOutput,
): Promise<number> {
  const content = words.join(' ').trim();
  if (!person || content === '') {
    output.error(`Name whose memory it is and what to remember.\n\n${MEMORY_ADMIN_USAGE}`);
    return 64;
  }
  const result = await service.add({
    ...(person === GLOBAL_USER_ID ? { scope: 'global' } : { userId: person, scope: 'user' }),
    content,
    // The operator states it: it is explicit, unlike what extraction infers.
    source: (flags.source as MemorySource | undefined) ?? 'user_explicit',
    ...(flags.category ? { category: flags.category as Memory['category'] } : {}),
  });
  output.out(`${result.action === 'inserted' ? 'Added' : 'Already known'}: ${result.memory.id}\n`);
  return 0;
}

async function deleteCommand(
  service: MemoryApi,
  person: string | undefined,
  ids: string[],
  output: CommandOutput,
): Promise<number> {
  const [id] = ids;
  if (!id || ids.length > 1) {
    output.error(`Name one memory id.\n\n${MEMORY_ADMIN_USAGE}`);
    return 64;
  }
  // Without --user the id is looked for under every person (ids are unique across people).
  for (const userId of await people(service, person)) {
    if ((await service.delete({ userId, id })).deleted) {
      output.out(`Deleted ${id}.\n`);
      return 0;
    }
  }
  output.error(`No memory ${id}${person ? ` for ${person}` : ''}.\n`);
  return 1;
}

async function exportCommand(
  service: MemoryApi,
  person: string | undefined,
  files: string[],
  output: CommandOutput,
): Promise<number> {
  const lines: string[] = [];
  for (const userId of await people(service, person)) {
    for (let offset = 0; ; offset += PAGE) {
      const page = await service.list({ userId, limit: PAGE, offset });
      lines.push(...page.map((memory) => JSON.stringify(memory)));
      if (page.length < PAGE) break;
    }
  }
  const text = lines.length > 0 ? `${lines.join('\n')}\n` : '';
  const [file] = files;
  if (file) {
    // The export holds what people told the assistant: readable by its owner only.
    await writeFile(file, text, { mode: 0o600 });
    output.error(`Exported ${lines.length} memories to ${file}.\n`);
  } else output.out(text);
  return 0;
}

async function importCommand(
  service: MemoryApi,
  person: string | undefined,
  flags: MemoryAdminFlags,
  paths: string[],
  output: CommandOutput,
): Promise<number> {
  const [path] = paths;
  const format = flags.format ?? 'jsonl';
  if (!path || paths.length > 1 || !['jsonl', 'mem0', 'openclaw'].includes(format)) {
    output.error(MEMORY_ADMIN_USAGE);
    return 64;
  }
  let parsed: MemoryImport;
  if (format === 'openclaw') {
    if (!person) {
      output.error('OpenClaw memory has no person in it: pass --user <person> (or --global).\n');
      return 64;
    }
    parsed = await readOpenClawMemory(path, { userId: person });
  } else {
    const text = await readFile(path, 'utf8');
    parsed =
      format === 'mem0' ? parseMem0Export(text, person ? { userId: person } : {}) : parseMemoryJsonl(text);
    // Moved to another person, a memory gets a new id: its old one still names the original,
    // and a store may hold both. A re-import still adds nothing (same content, same person).
    if (person)
      for (const item of parsed.items) {
        item.userId = person;
        delete item.id;
      }
  }
  const counts = { inserted: 0, updated: 0, unchanged: 0 };
  for (const item of parsed.items) {
    if (item.userId === GLOBAL_USER_ID) {
      item.scope = 'global';
      delete item.sessionId;
    }
    try {
      counts[(await service.add(item)).action] += 1;
    } catch (error) {
      if (!(error instanceof MemoryInputError)) throw error;
      parsed.skipped.push({ where: item.content.slice(0, 60), reason: error.message });
    }
  }
  for (const { where, reason } of parsed.skipped) output.error(`skipped ${where}: ${reason}\n`);
  output.out(
    `Imported: ${counts.inserted} new, ${counts.updated} updated, ${counts.unchanged} already there; ${parsed.skipped.length} skipped.\n`,
  );
  return parsed.skipped.length > 0 ? 65 : 0;
}

/** The people to act on: the one named, or everyone with memories plus the global partition. */
async function people(service: MemoryApi, person: string | undefined): Promise<string[]> {
  if (person) return [person];
  const stats = await service.stats();
  return [GLOBAL_USER_ID, ...stats.users.map((user) => user.userId)];
}
