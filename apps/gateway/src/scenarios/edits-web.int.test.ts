import type { ReplyEvent } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTurns, correctionNotePattern, lastHistory, settle } from '../testing/edit-test-support.ts';
import { startTestGateway } from '../testing/test-gateway.ts';

// Edits and deletes end to end on the web chat, at the protocol level: `edit` and `delete` frames
// from the real `ws` client to the real gateway (web-socket channel, core with its SQLite inbox
// and sessions, the AI SDK against the scripted model).

let model: ScriptedModelServer;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let client: WebChatClient;

beforeAll(async () => {
  model = await startScriptedModelServer();
  gateway = await startTestGateway({ modelBaseUrl: model.baseUrl });
  client = await WebChatClient.connect({ url: gateway.url, token: gateway.token, clientId: 'ada' });
});
afterAll(async () => {
  await client?.close();
  await gateway?.dispose();
  await model?.close();
});

const replyIdOf = (events: ReplyEvent[]) =>
  events.find((event): event is Extract<ReplyEvent, { type: 'reply.start' }> => event.type === 'reply.start')
    ?.replyId;
/** Replies the conversation received, each counted once by its `reply.end`. */
const endedReplies = (conversationId: string) =>
  client.eventsOf(conversationId).filter(({ event }) => event.type === 'reply.end');

describe('web: an edit of the newest message', () => {
  it('is answered once with a new reply id and the new words only; the same edit frame again is a duplicate', async () => {
    const first = await client.ask('sums', 'What is 2+2?', 'sum-1');
    expect(first.text).toBe('Echo: What is 2+2?');

    const reanswer = await client.askAgain('sums', 'sum-1', 'What is 3+3?', 'sum-1-edit-1');
    expect(reanswer.text).toBe('Echo: What is 3+3?');
    expect(replyIdOf(reanswer.events)).toBeDefined();
    expect(replyIdOf(reanswer.events)).not.toBe(replyIdOf(first.events));
    expect(lastHistory(model)).toBe('user: What is 3+3?');
    const turns = chatTurns(model).length;

    const again = await client.askAgain('sums', 'sum-1', 'What is 3+3?', 'sum-1-edit-1');
    expect(again).toMatchObject({ duplicate: true, events: [] });
    expect(
      client.frames.filter((frame) => frame.type === 'accepted' && frame.clientMessageId === 'sum-1-edit-1'),
    ).toMatchObject([{ duplicate: false }, { duplicate: true }]);
    // Turns of a conversation run in order: a second answer would come before this one.
    const next = await client.ask('sums', 'And doubled?');
    await settle();
    expect(next.text).toBe('Echo: And doubled?');
    expect(endedReplies('sums')).toHaveLength(3);
    expect(chatTurns(model)).toHaveLength(turns + 1);
    expect(lastHistory(model)).toBe('user: What is 3+3?\nassistant: Echo: What is 3+3?\nuser: And doubled?');
  });
});

describe('web: an edit of an older message, and a delete', () => {
  it('notes the older edit without a reply; a deleted message leaves the next request', async () => {
    await client.ask('trip', 'My flight is on Monday', 'trip-1');
    await client.ask('trip', 'My PIN is 4321', 'trip-2');

    // Sent right after each other, as a fast client would: the edit still comes first.
    const edited = client.change({
      conversationId: 'trip',
      targetClientMessageId: 'trip-1',
      text: 'My flight is on Tuesday',
    });
    await client.ask('trip', 'When do I fly?');
    expect((await edited).duplicate).toBe(false);
    expect(endedReplies('trip')).toHaveLength(3);
    const history = lastHistory(model);
    expect(history).toContain('user: My flight is on Tuesday\nassistant: Echo: My flight is on Monday');
    expect(history).toMatch(correctionNotePattern('My flight is on Monday', 'My flight is on Tuesday'));

    const deleted = client.change({ conversationId: 'trip', targetClientMessageId: 'trip-2' });
    await client.ask('trip', 'What did I tell you?');
    expect((await deleted).duplicate).toBe(false);
    await settle();
    expect(endedReplies('trip')).toHaveLength(4);
    const next = lastHistory(model);
    expect(next).not.toContain('4321');
    expect(next).toContain('user: My flight is on Tuesday');
    expect(next).toMatch(
      /user: When do I fly\?\nassistant: Echo: When do I fly\?\nuser: What did I tell you\?$/u,
    );
  });
});
