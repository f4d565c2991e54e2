import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChatSession } from './chat-session.ts';
import { ChatStorage, type KeyValueStore, memoryKeyValueStore } from './storage.ts';
import { type StandInGateway, startStandInGateway } from './testing/stand-in-gateway.ts';

const token = 'secret-token';
let gateway: StandInGateway | undefined;
const sessions: ChatSession[] = [];

afterEach(async () => {
  for (const session of sessions.splice(0)) session.stop();
  await gateway?.close();
  gateway = undefined;
});

let counter = 0;
const randomId = () => `conv-${++counter}`;

function openSession(store: KeyValueStore, deleted: string[] = [], failDelete = false): ChatSession {
  const session = new ChatSession({
    url: gateway!.url,
    token,
    storage: new ChatStorage({ store, randomId }),
    randomId,
    backoff: { initialMs: 10, maxMs: 40 },
    deleteServerConversation: async (conversationId) => {
      if (failDelete) throw new Error('The gateway cannot be reached.');
      deleted.push(conversationId);
    },
  });
  sessions.push(session);
  return session;
}

describe('ChatSession conversations', () => {
  it('switches between conversations, asking the gateway for what the other one missed', async () => {
    gateway = await startStandInGateway({ token });
    const store = memoryKeyValueStore();
    const session = openSession(store);
    session.start();
    const server = await gateway.nextConnection();
    await server.nextFrame();
    const sent = session.send('first topic');
    await server.nextFrame();
    const first = session.snapshot.conversation.conversationId;
    if (sent.ok)
      server.send({
        type: 'accepted',
        clientMessageId: sent.clientMessageId,
        conversationId: first,
        duplicate: false,
      });
    server.send({
      type: 'event',
      conversationId: first,
      seq: 5,
      event: { type: 'reply.end', replyId: 'r', text: 'ok' },
    });
    await vi.waitFor(() => expect(session.snapshot.conversation.lastSeq).toBe(5));

    session.newConversation();
    session.send('second topic');
    await server.nextFrame();
    await vi.waitFor(() =>
      expect(session.snapshot.conversations.map((entry) => entry.title)).toEqual([
        'second topic',
        'first topic',
      ]),
    );
    // A reply for the conversation not shown is not mixed into the one shown.
    server.send({
      type: 'event',
      conversationId: first,
      seq: 6,
      event: { type: 'reply.end', replyId: 'r2', text: 'late' },
    });

    expect(session.switchConversation(first)).toBe(true);
    expect(session.snapshot.conversation.messages.map((message) => message.text)).toEqual([
      'first topic',
      'ok',
    ]);
    expect(await server.nextFrame()).toEqual({ type: 'resume', conversationId: first, lastSeq: 5 });
    expect(session.switchConversation('unknown')).toBe(false);
    expect(new ChatStorage({ store, randomId }).readConversation()?.conversationId).toBe(first);
  });

  it('deletes on the gateway first, then here; a failure keeps the conversation', async () => {
    gateway = await startStandInGateway({ token });
    const store = memoryKeyValueStore();
    const deleted: string[] = [];
    const failing = openSession(store, deleted, true);
    failing.send('keep me');
    failing.flush();
    const id = failing.snapshot.conversation.conversationId;
    await expect(failing.deleteConversation(id)).rejects.toThrow('cannot be reached');
    expect(failing.snapshot.conversations).toHaveLength(1);
    failing.stop();

    const session = openSession(store, deleted);
    expect(session.snapshot.conversation.conversationId).toBe(id);
    await session.deleteConversation(id);
    expect(deleted).toEqual([id]);
    expect(session.snapshot.conversations).toEqual([]);
    expect(session.snapshot.conversation.conversationId).not.toBe(id);
    expect(session.snapshot.conversation.messages).toEqual([]);
    expect(new ChatStorage({ store, randomId }).readConversation(id)).toBeUndefined();
  });

  it('Stop: keeps the text shown, asks the gateway to stop there, and takes the stopped end it answers', async () => {
    gateway = await startStandInGateway({ token });
    const session = openSession(memoryKeyValueStore());
    session.start();
    const server = await gateway.nextConnection();
    await server.nextFrame();
    session.send('write a lot');
    await server.nextFrame();
    const conversationId = session.snapshot.conversation.conversationId;
    server.send({
      type: 'event',
      conversationId,
      seq: 1,
      event: { type: 'reply.delta', replyId: 'r', text: 'Once' },
    });
    await vi.waitFor(() => expect(session.snapshot.conversation.messages[1]?.state).toBe('streaming'));
    session.stopReply();
    expect(await server.nextFrame()).toEqual({ type: 'cancel', conversationId, replyId: 'r', shownChars: 4 });
    server.send({
      type: 'event',
      conversationId,
      seq: 2,
      event: { type: 'reply.delta', replyId: 'r', text: ' upon' },
    });
    server.send({ type: 'event', conversationId, seq: 3, event: { type: 'status', text: 'marker' } });
    await vi.waitFor(() => expect(session.snapshot.conversation.activity).toBe('marker'));
    expect(session.snapshot.conversation.messages[1]).toMatchObject({
      text: 'Once',
      state: 'done',
      stopped: true,
    });
    server.send({
      type: 'event',
      conversationId,
      seq: 4,
      event: { type: 'reply.end', replyId: 'r', text: 'Once', stopped: true },
    });
    await vi.waitFor(() => expect(session.snapshot.conversation.lastSeq).toBe(4));
    expect(session.snapshot.conversation.messages[1]).toMatchObject({ text: 'Once', stopped: true });
  });

  it('Stop that came too late: the whole reply the gateway kept replaces the cut text', async () => {
    gateway = await startStandInGateway({ token });
    const session = openSession(memoryKeyValueStore());
    session.start();
    const server = await gateway.nextConnection();
    await server.nextFrame();
    session.send('short one');
    await server.nextFrame();
    const conversationId = session.snapshot.conversation.conversationId;
    server.send({
      type: 'event',
      conversationId,
      seq: 1,
      event: { type: 'reply.delta', replyId: 'r', text: 'Hi' },
    });
    await vi.waitFor(() => expect(session.snapshot.conversation.messages[1]?.state).toBe('streaming'));
    session.stopReply();
    await server.nextFrame();
    server.send({
      type: 'event',
      conversationId,
      seq: 2,
      event: { type: 'reply.end', replyId: 'r', text: 'Hi there' },
    });
    await vi.waitFor(() => expect(session.snapshot.conversation.messages[1]?.text).toBe('Hi there'));
    expect(session.snapshot.conversation.messages[1]?.stopped).toBeUndefined();
  });
});
