import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteMemoryStore, type Memory, type MemoryApi, MemoryService } from '@nexus/memory';
import type { ChannelAdapter, IntentInput, Logger, ReplyEvent } from '@nexus/protocol';
import { TEST_CHANNEL_CAPABILITIES } from '@nexus/testkit/channel';
import type { ChatCompletionRequest, ScriptedResponse } from '@nexus/testkit/llm';
import { loadConfig } from '../config/load-config.ts';
import { startGateway } from '../start-gateway.ts';

export const CHAT_REPLY = 'Here is an idea for tonight: a cosy place near you.';

/** Facts the scripted extraction model finds in a person's message. */
const FACTS: Record<string, Array<{ content: string; category: string; source: string }>> = {
  "I'm vegetarian and I live in Lisbon": [
    { content: 'Is vegetarian', category: 'preference', source: 'user_explicit' },
    { content: 'Lives in Lisbon', category: 'fact', source: 'user_explicit' },
  ],
  'I moved to Berlin': [{ content: 'Lives in Berlin', category: 'fact', source: 'user_explicit' }],
  "I'm allergic to peanuts and I live in Porto": [
    { content: 'Is allergic to peanuts', category: 'fact', source: 'user_explicit' },
    { content: 'Lives in Porto', category: 'fact', source: 'user_explicit' },
  ],
  'Our book club meets every Friday at 19:00': [
    { content: 'Meets every Friday at 19:00', category: 'pattern', source: 'user_explicit' },
  ],
};

const systemOf = (request: ChatCompletionRequest) => String(request.messages[0]?.content ?? '');
const lastUserOf = (request: ChatCompletionRequest) =>
  String(request.messages.findLast((message) => message.role === 'user')?.content ?? '');

export const isExtraction = (request: ChatCompletionRequest) =>
  systemOf(request).includes('You extract lasting facts');
export const isDecision = (request: ChatCompletionRequest) =>
  /You keep (a person's|a group chat's) long-term memory/u.test(systemOf(request));
/** An extraction or decision request about a group's memory rather than a person's. */
export const isGroupMemoryRequest = (request: ChatCompletionRequest) =>
  /memory of this group|a group chat's long-term memory/u.test(systemOf(request));
export const isChatTurn = (request: ChatCompletionRequest) => !isExtraction(request) && !isDecision(request);

/**
 * A scripted model that extracts like a careless extraction model would: facts from a table keyed
 * by the message, for a person or a group alike (so a test shows where they land); decisions that replace a stored "Lives in …" with a new one, skip exact
 * restatements and add the rest. Chat turns get a fixed streamed reply.
 */
export function memoryAwareResponder(request: ChatCompletionRequest): ScriptedResponse {
  if (isExtraction(request)) {
    const message =
      /(?:The person|A member of the group) wrote:\n<<<\n([\s\S]*?)\n>>>/u.exec(lastUserOf(request))?.[1] ??
      '';
    return { text: `\`\`\`json\n${JSON.stringify({ facts: FACTS[message] ?? [] })}\n\`\`\`` };
  }
  if (isDecision(request)) {
    const prompt = lastUserOf(request);
    const facts = [...prompt.matchAll(/^(\d+)\. (.+) \(\w+\)$/gmu)].map((match) => ({
      number: Number(match[1]),
      content: match[2]!,
    }));
    const stored = [...prompt.matchAll(/^\[(\d+)\] (.+) \(\w+, [^)]+\)$/gmu)].map((match) => ({
      number: Number(match[1]),
      content: match[2]!,
    }));
    const decisions = facts.map((fact) => {
      if (stored.some((memory) => memory.content === fact.content))
        return { fact: fact.number, action: 'NONE' };
      const place = fact.content.startsWith('Lives in')
        ? stored.find((memory) => memory.content.startsWith('Lives in'))
        : undefined;
      return place
        ? { fact: fact.number, action: 'UPDATE', memory: place.number, content: fact.content }
        : { fact: fact.number, action: 'ADD' };
    });
    return { text: JSON.stringify({ decisions }) };
  }
  return { text: CHAT_REPLY };
}

/** A gateway on a temporary data directory with memory on, and a reader of its memory file. */
export async function startMemoryGateway(options: {
  modelBaseUrl: string;
  env?: Record<string, string>;
  logger?: Logger;
}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'nexus-memory-'));
  const config = loadConfig({
    env: {
      NEXUS_PORT: '0',
      NEXUS_DATA_DIR: dataDir,
      NEXUS_WEB_MESSAGES_PER_MINUTE: '100000',
      NEXUS_LOG_LEVEL: 'silent',
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: options.modelBaseUrl,
      NEXUS_MODEL: 'chat-model',
      NEXUS_EXTRACTION_MODEL: 'cheap-model',
      ...options.env,
    },
  });
  const gateway = await startGateway({ config, ...(options.logger ? { logger: options.logger } : {}) });
  const readerStore =
    config.memory.mode === 'in-process'
      ? createSqliteMemoryStore({ path: join(dataDir, 'memory.sqlite') })
      : undefined;
  const reader = readerStore ? new MemoryService({ store: readerStore }) : undefined;
  return {
    ...gateway,
    dataDir,
    /** The person's memories as stored, in content order. */
    async memoriesOf(userId: string): Promise<Memory[]> {
      if (!reader) throw new Error('memory is not in process');
      return (await reader.list({ userId })).sort((left, right) => left.content.localeCompare(right.content));
    },
    async dispose() {
      await gateway.close();
      await readerStore?.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A channel for conversations the web chat cannot have (groups); records each reply's events. */
export function createGroupTestChannel(name = 'group-test') {
  const replies = new Map<string, ReplyEvent[]>();
  const adapter: ChannelAdapter = {
    name,
    capabilities: TEST_CHANNEL_CAPABILITIES,
    async start() {},
    async stop() {},
    health: () => ({ status: 'up' }),
    async deliver({ conversation, events }) {
      const received: ReplyEvent[] = [];
      replies.set(conversation.intentId, received);
      for await (const event of events) received.push(event);
    },
  };
  return {
    adapter,
    replies,
    intent(options: { id: string; userId: string; text: string; conversationId?: string }): IntentInput {
      return {
        id: options.id,
        channel: name,
        conversation: { id: options.conversationId ?? 'group-1', kind: 'group', title: 'Friends' },
        sender: { platformId: options.userId },
        userId: options.userId,
        text: options.text,
        mentionsAssistant: true,
        receivedAt: new Date().toISOString(),
      };
    },
  };
}

export interface RecordedLine {
  level: string;
  object: Record<string, unknown>;
  message?: string;
}

/** A Logger that keeps every line, for asserting on warnings. */
export function createLineLogger(lines: RecordedLine[] = []): Logger & { lines: RecordedLine[] } {
  const write = (level: string) => (object: object, message?: string) => {
    lines.push({ level, object: object as Record<string, unknown>, ...(message ? { message } : {}) });
  };
  return {
    lines,
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: () => createLineLogger(lines),
  };
}

/** The service's own methods, bound, with some replaced: a stand-in that misbehaves on purpose. */
export function withOverrides(service: MemoryApi, overrides: Partial<MemoryApi>): MemoryApi {
  return {
    add: (options) => service.add(options),
    search: (options) => service.search(options),
    context: (options) => service.context(options),
    list: (options) => service.list(options),
    standingFacts: (options) => service.standingFacts(options),
    get: (options) => service.get(options),
    update: (options) => service.update(options),
    delete: (options) => service.delete(options),
    reset: (options) => service.reset(options),
    sessionMemories: (options) => service.sessionMemories(options),
    stats: (options) => service.stats(options),
    health: (options) => service.health(options),
    ...overrides,
  };
}

/** The environment of a start whose model provider is the scripted server at `baseUrl`. */
export function scriptedProviderEnv(dataDir: string, baseUrl: string): Record<string, string> {
  return {
    NEXUS_DATA_DIR: dataDir,
    NEXUS_MODEL_PROVIDER: 'openai-compatible',
    NEXUS_MODEL_BASE_URL: baseUrl,
    NEXUS_MODEL: 'scripted-model',
  };
}

/** The gateway's `/health` memory line as `<search>: <reason>` (`unknown` when it has none). */
export async function healthMemoryLine(gatewayUrl: string): Promise<string> {
  const body = (await (await fetch(`${gatewayUrl}/health`)).json()) as {
    memory?: { search: string; reason?: string };
  };
  return body.memory ? `${body.memory.search}: ${body.memory.reason}` : 'unknown';
}
