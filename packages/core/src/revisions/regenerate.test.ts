import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { IntentInput, ReplyEvent } from '@nexus/protocol';
import {
  type ChatCompletionRequest,
  messageText,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.ts';
import { createNexusCore, type NexusCore } from '../nexus-core.ts';
import type { SessionStore } from '../session-store/session-store.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';
import { createRecordingChannel, testIntent } from '../testing/recording-channel.ts';

// Regenerate, Try again and choosing a version, through the real core, SQLite history and the AI
// SDK asking the scripted model over HTTP.

let server: ScriptedModelServer;
const cores: NexusCore[] = [];
const directories: string[] = [];

beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown({ deadlineMs: 1000 })));
  await server.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function setUp(path = ':memory:') {
  const channel = createRecordingChannel();
  const sessionStore = createSqliteSessionStore({ path });
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
  const core = createNexusCore({ sessionStore, agent: createAgent({ model, maxRetries: 0 }) });
  core.registerChannel(channel.adapter);
  cores.push(core);
  return { core, channel, sessionStore };
}

function revision(id: string, revises: IntentInput['revises'], text = ''): IntentInput {
  return { ...testIntent({ id, text }), revises };
}

/** The assistant turns the model was sent in chat request `index`. */
function assistantHistory(index: number): string[] {
  const body = server.chatRequests()[index]?.body as ChatCompletionRequest;
  return body.messages.filter((message) => message.role === 'assistant').map(messageText);
}

const replyIdOf = (events: readonly ReplyEvent[]) => {
  const end = events.find((event) => event.type === 'reply.end');
  return end?.type === 'reply.end' ? end.replyId : '';
};

async function historyOf(sessionStore: SessionStore) {
  return (await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 10 })).map(
    ({ userText, replyText }) => ({ userText, replyText }),
  );
}

describe('regenerate and versions', () => {
  it('answers the newest message again under a new reply id; history and the next turn hold only the new answer', async () => {
    const { core, channel, sessionStore } = setUp();
    server.enqueue({ text: 'First answer' }, { text: 'Second answer' });
    await core.intake(testIntent({ id: 'm1', text: 'Name a colour' }));
    await core.whenIdle();
    await core.intake(revision('m1:again:1', { kind: 'regenerate', targetIntentId: 'm1' }, 'Name a colour'));
    await core.whenIdle();

    const [first, second] = channel.deliveries;
    expect(replyIdOf(second?.events ?? [])).not.toBe(replyIdOf(first?.events ?? []));
    expect(second?.conversation.intentId).toBe('m1');
    expect(channel.replyTextOf('m1')).toBe('First answer');
    const regenerated = second?.events.find((event) => event.type === 'reply.end');
    expect(regenerated).toMatchObject({ text: 'Second answer' });
    // The model was asked the same question again, without the first answer in its history.
    expect(assistantHistory(1)).toEqual([]);
    expect(await historyOf(sessionStore)).toEqual([
      { userText: 'Name a colour', replyText: 'Second answer' },
    ]);

    await core.intake(testIntent({ id: 'm2', text: 'Why?' }));
    await core.whenIdle();
    expect(assistantHistory(2)).toEqual(['Second answer']);
  });

  it('brings an earlier version back: the next turn sees only the chosen one, with no model call', async () => {
    const { core, channel, sessionStore } = setUp();
    server.enqueue({ text: 'Version one' }, { text: 'Version two' });
    await core.intake(testIntent({ id: 'm1', text: 'Say something' }));
    await core.whenIdle();
    const firstReplyId = replyIdOf(channel.deliveries[0]?.events ?? []);
    await core.intake(revision('m1:again', { kind: 'regenerate', targetIntentId: 'm1' }, 'Say something'));
    await core.whenIdle();
    const requestsBefore = server.chatRequests().length;

    expect(
      await core.intake(
        revision('m1:choose', { kind: 'choose', targetIntentId: 'm1', replyId: firstReplyId }),
      ),
    ).toEqual({ status: 'accepted' });
    await core.whenIdle();
    expect(server.chatRequests().length).toBe(requestsBefore);
    expect(channel.deliveries.length).toBe(2);
    expect(await historyOf(sessionStore)).toEqual([{ userText: 'Say something', replyText: 'Version one' }]);

    // An id never sent, or another message's, changes nothing.
    await core.intake(
      revision('m1:choose-bad', { kind: 'choose', targetIntentId: 'm1', replyId: 'r-unknown' }),
    );
    await core.whenIdle();
    expect(await historyOf(sessionStore)).toEqual([{ userText: 'Say something', replyText: 'Version one' }]);

    await core.intake(testIntent({ id: 'm2', text: 'More' }));
    await core.whenIdle();
    expect(assistantHistory(requestsBefore)).toEqual(['Version one']);
  });

  it('keeps the versions of an edited message too, and forgets them with the conversation', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'nexus-versions-'));
    directories.push(directory);
    const { core, channel, sessionStore } = setUp(join(directory, 'sessions.sqlite'));
    server.enqueue({ text: 'About cats' }, { text: 'About dogs' });
    await core.intake(testIntent({ id: 'm1', text: 'Tell me about cats' }));
    await core.whenIdle();
    const catsReplyId = replyIdOf(channel.deliveries[0]?.events ?? []);
    await core.intake(revision('m1:edit:1', { kind: 'edit', targetIntentId: 'm1' }, 'Tell me about dogs'));
    await core.whenIdle();
    await core.intake(revision('m1:choose', { kind: 'choose', targetIntentId: 'm1', replyId: catsReplyId }));
    await core.whenIdle();
    // The version brings its own question back with it.
    expect(await historyOf(sessionStore)).toEqual([
      { userText: 'Tell me about cats', replyText: 'About cats' },
    ]);

    await sessionStore.forgetConversation?.({
      conversationKey: 'test:conversation-1',
      userIds: ['test:person-1'],
    });
    expect(
      await sessionStore.replyVersion?.({ channel: 'test', intentId: 'm1', replyId: catsReplyId }),
    ).toBeUndefined();
  });

  it('Try again: a message whose turn failed is answered with the words the channel sent', async () => {
    const { core, channel, sessionStore } = setUp();
    server.enqueue({ status: 503 }, { text: 'Now it works' });
    await core.intake(testIntent({ id: 'm1', text: 'Hello?' }));
    await core.whenIdle();
    expect(channel.deliveries[0]?.events.some((event) => event.type === 'error')).toBe(true);
    expect(await historyOf(sessionStore)).toEqual([]);

    await core.intake(revision('m1:again', { kind: 'regenerate', targetIntentId: 'm1' }, 'Hello?'));
    await core.whenIdle();
    expect(channel.deliveries[1]?.events.at(-1)).toMatchObject({ type: 'reply.end', text: 'Now it works' });
    expect(await historyOf(sessionStore)).toEqual([{ userText: 'Hello?', replyText: 'Now it works' }]);
  });

  it('does not answer an older message again', async () => {
    const { core, channel, sessionStore } = setUp();
    server.enqueue({ text: 'one' }, { text: 'two' });
    await core.intake(testIntent({ id: 'm1', text: 'first' }));
    await core.intake(testIntent({ id: 'm2', text: 'second' }));
    await core.whenIdle();
    await core.intake(revision('m1:again', { kind: 'regenerate', targetIntentId: 'm1' }, 'first'));
    await core.whenIdle();
    expect(channel.deliveries.length).toBe(2);
    expect(server.chatRequests().length).toBe(2);
    expect(await historyOf(sessionStore)).toEqual([
      { userText: 'first', replyText: 'one' },
      { userText: 'second', replyText: 'two' },
    ]);
  });
});
