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
const randomId = () => `id-${++counter}`;

function openSession(store: KeyValueStore, url = gateway!.url): ChatSession {
  const session = new ChatSession({
    url,
    token,
    storage: new ChatStorage({ store, randomId }),
    randomId,
    backoff: { initialMs: 10, maxMs: 40 },
  });
  sessions.push(session);
  return session;
}

describe('ChatSession', () => {
  it('shows the welcome notice and the streamed reply, and a reload restores it and resumes', async () => {
    gateway = await startStandInGateway({ token, welcome: { notice: 'No model provider configured.' } });
    const store = memoryKeyValueStore();
    const first = openSession(store);
    first.start();
    const server = await gateway.nextConnection();
    expect(await server.nextFrame()).not.toHaveProperty('resume');
    await vi.waitFor(() => expect(first.snapshot.notice).toBe('No model provider configured.'));

    const sent = first.send('  What is Nexus?  ');
    if (!sent.ok) throw new Error(sent.reason);
    const message = await server.nextFrame();
    expect(message).toMatchObject({
      type: 'message',
      clientMessageId: sent.clientMessageId,
      text: 'What is Nexus?',
    });
    const conversationId = first.snapshot.conversation.conversationId;
    server.send({
      type: 'accepted',
      clientMessageId: sent.clientMessageId,
      conversationId,
      duplicate: false,
    });
    server.send({ type: 'event', conversationId, seq: 1, event: { type: 'reply.start', replyId: 'r1' } });
    server.send({
      type: 'event',
      conversationId,
      seq: 2,
      event: { type: 'reply.delta', replyId: 'r1', text: 'A ' },
    });
    await vi.waitFor(() => expect(first.snapshot.conversation.messages[1]?.text).toBe('A '));
    server.send({
      type: 'event',
      conversationId,
      seq: 3,
      event: { type: 'reply.end', replyId: 'r1', text: 'A gateway.' },
    });
    await vi.waitFor(() => expect(first.snapshot.conversation.lastSeq).toBe(3));
    first.stop();

    const second = openSession(store);
    expect(
      second.snapshot.conversation.messages.map((entry) => [entry.role, entry.text, entry.state]),
    ).toEqual([
      ['user', 'What is Nexus?', 'sent'],
      ['assistant', 'A gateway.', 'done'],
    ]);
    second.start();
    const resumed = await gateway.nextConnection();
    expect(await resumed.nextFrame()).toMatchObject({
      type: 'hello',
      resume: { conversationId, lastSeq: 3 },
    });
    // The server replays from its own log; what we already have must not be applied twice.
    resumed.send({
      type: 'event',
      conversationId,
      seq: 3,
      event: { type: 'reply.end', replyId: 'r1', text: 'A gateway.' },
    });
    resumed.send({ type: 'event', conversationId, seq: 4, event: { type: 'status', text: 'Thinking…' } });
    await vi.waitFor(() => expect(second.snapshot.conversation.activity).toBe('Thinking…'));
    expect(second.snapshot.conversation.messages).toHaveLength(2);
  });

  it('keeps messages typed while offline across a reload and sends them once connected', async () => {
    const store = memoryKeyValueStore();
    const offline = openSession(store, 'ws://127.0.0.1:9/ws');
    offline.start();
    const sent = offline.send('sent while offline');
    if (!sent.ok) throw new Error(sent.reason);
    expect(offline.snapshot.connection.queued).toBe(1);
    offline.stop();

    gateway = await startStandInGateway({ token });
    const online = openSession(store);
    expect(online.snapshot.conversation.messages[0]).toMatchObject({
      state: 'pending',
      text: 'sent while offline',
    });
    online.start();
    const server = await gateway.nextConnection();
    expect((await server.nextFrame()).type).toBe('hello');
    expect(await server.nextFrame()).toMatchObject({
      clientMessageId: sent.clientMessageId,
      text: 'sent while offline',
    });
  });

  it('starts a new conversation that is sent under a new id without a resume', async () => {
    gateway = await startStandInGateway({ token });
    const store = memoryKeyValueStore();
    const session = openSession(store);
    session.start();
    const server = await gateway.nextConnection();
    await server.nextFrame();
    session.send('first');
    const firstMessage = await server.nextFrame();
    session.newConversation();
    expect(session.snapshot.conversation.messages).toEqual([]);
    session.send('second');
    const secondMessage = await server.nextFrame();
    expect(secondMessage).toMatchObject({ type: 'message', text: 'second' });
    expect(secondMessage.type === 'message' && secondMessage.conversationId).not.toBe(
      firstMessage.type === 'message' && firstMessage.conversationId,
    );
    expect(new ChatStorage({ store, randomId }).readConversation()?.messages).toEqual([]);
  });

  it('refuses empty and over-long text before queueing it', async () => {
    gateway = await startStandInGateway({
      token,
      welcome: { limits: { maxFrameBytes: 65_536, maxTextChars: 5, messagesPerMinute: 60 } },
    });
    const session = openSession(memoryKeyValueStore());
    session.start();
    await vi.waitFor(() => expect(session.snapshot.maxTextChars).toBe(5));
    expect(session.send('   ')).toEqual({ ok: false, reason: 'Type a message first.' });
    expect(session.send('too long')).toMatchObject({ ok: false });
    expect(session.snapshot.conversation.messages).toEqual([]);
  });

  it('reports a rejected token as unauthorized', async () => {
    gateway = await startStandInGateway({ token: 'the-real-token' });
    const session = openSession(memoryKeyValueStore());
    session.start();
    await vi.waitFor(() => expect(session.snapshot.connection.phase).toBe('unauthorized'));
  });
});
