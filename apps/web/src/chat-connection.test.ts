import type { ServerFrame } from '@nexus/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChatConnection, type ChatConnectionOptions, type ConnectionStatus } from './chat-connection.ts';
import { type StandInGateway, startStandInGateway } from './testing/stand-in-gateway.ts';
import { isTokenRejected } from './token-check.ts';

const token = 'secret-token';
let gateway: StandInGateway | undefined;
let connection: ChatConnection | undefined;

afterEach(async () => {
  connection?.stop();
  connection = undefined;
  await gateway?.close();
  gateway = undefined;
});

function connect(overrides: Partial<ChatConnectionOptions> = {}) {
  const frames: ServerFrame[] = [];
  const statuses: ConnectionStatus[] = [];
  connection = new ChatConnection({
    url: gateway?.url ?? 'ws://127.0.0.1:9/ws',
    token,
    clientId: 'client-1',
    resumePoint: () => undefined,
    onFrame: (frame) => frames.push(frame),
    onStatus: (status) => statuses.push(status),
    backoff: { initialMs: 10, maxMs: 40 },
    random: () => 0.5,
    ...overrides,
  });
  return { connection, frames, statuses };
}

describe('ChatConnection', () => {
  it('sends the token as a sub-protocol, says hello and delivers server frames in order', async () => {
    gateway = await startStandInGateway({ token, welcome: { notice: 'Configure a model provider.' } });
    const { connection, frames } = connect();
    connection.start();
    const server = await gateway.nextConnection();
    expect(server.protocols).toEqual(['nexus.v1', `nexus.token.${token}`]);
    expect(await server.nextFrame()).toEqual({ type: 'hello', v: 1, clientId: 'client-1' });
    await vi.waitFor(() => expect(connection.status.phase).toBe('open'));
    expect(frames[0]).toMatchObject({ type: 'welcome', notice: 'Configure a model provider.' });

    connection.sendMessage({ clientMessageId: 'm1', conversationId: 'c1', text: 'hello' });
    expect(await server.nextFrame()).toEqual({
      type: 'message',
      clientMessageId: 'm1',
      conversationId: 'c1',
      text: 'hello',
    });
    expect(connection.status.queued).toBe(1);

    server.send({ type: 'accepted', clientMessageId: 'm1', conversationId: 'c1', duplicate: false });
    for (const [seq, event] of [
      [1, { type: 'reply.start', replyId: 'r1' }],
      [2, { type: 'reply.delta', replyId: 'r1', text: 'Hi' }],
      [3, { type: 'reply.end', replyId: 'r1', text: 'Hi there' }],
    ] as const) {
      server.send({ type: 'event', conversationId: 'c1', seq, event });
    }
    await vi.waitFor(() => expect(frames).toHaveLength(5));
    expect(frames.slice(1).map((frame) => (frame.type === 'event' ? frame.seq : frame.type))).toEqual([
      'accepted',
      1,
      2,
      3,
    ]);
    expect(connection.status.queued).toBe(0);
  });

  it('queues messages sent before the welcome and sends them right after it', async () => {
    gateway = await startStandInGateway({ token });
    const { connection } = connect();
    connection.sendMessage({ clientMessageId: 'm1', conversationId: 'c1', text: 'typed offline' });
    expect(connection.status).toMatchObject({ phase: 'connecting', queued: 1 });
    connection.start();
    const server = await gateway.nextConnection();
    expect((await server.nextFrame()).type).toBe('hello');
    expect(await server.nextFrame()).toMatchObject({
      type: 'message',
      clientMessageId: 'm1',
      text: 'typed offline',
    });
  });

  it('reconnects after a drop, resumes from the last seq and resends unaccepted messages under the same id', async () => {
    gateway = await startStandInGateway({ token });
    const { connection, statuses } = connect({ resumePoint: () => ({ conversationId: 'c1', lastSeq: 7 }) });
    connection.start();
    const first = await gateway.nextConnection();
    await first.nextFrame();
    await vi.waitFor(() => expect(connection.status.phase).toBe('open'));
    connection.sendMessage({ clientMessageId: 'm1', conversationId: 'c1', text: 'are you there?' });
    await first.nextFrame();

    first.socket.terminate();
    const second = await gateway.nextConnection();
    expect(await second.nextFrame()).toEqual({
      type: 'hello',
      v: 1,
      clientId: 'client-1',
      resume: { conversationId: 'c1', lastSeq: 7 },
    });
    expect(await second.nextFrame()).toEqual({
      type: 'message',
      clientMessageId: 'm1',
      conversationId: 'c1',
      text: 'are you there?',
    });
    expect(statuses.map((status) => status.phase)).toContain('reconnecting');
    await vi.waitFor(() => expect(connection.status).toMatchObject({ phase: 'open', attempt: 0 }));
  });

  it('stops at close code 4401 and reports unauthorized instead of retrying', async () => {
    gateway = await startStandInGateway({ token: 'another-token', rejectTokenWith: 'close-4401' });
    const { connection } = connect();
    connection.start();
    await vi.waitFor(() => expect(connection.status.phase).toBe('unauthorized'));
    // Backoff is 10–40 ms here: a retry would have shown up well within this wait.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gateway.connections).toHaveLength(1);
  });

  it('after a refused handshake, asks the gateway and stops when it says the token is wrong', async () => {
    gateway = await startStandInGateway({ token: 'another-token' });
    const url = gateway.url;
    const { connection } = connect({ isTokenRejected: () => isTokenRejected({ url, token }) });
    connection.start();
    await vi.waitFor(() => expect(connection.status.phase).toBe('unauthorized'));
    const handshakes = gateway.rejectedHandshakes;
    expect(handshakes).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gateway.rejectedHandshakes).toBe(handshakes);
  });

  it('keeps reconnecting while the gateway cannot be reached', async () => {
    const { connection } = connect({
      url: 'ws://127.0.0.1:9/ws',
      isTokenRejected: () => isTokenRejected({ url: 'ws://127.0.0.1:9/ws', token }),
    });
    connection.start();
    await vi.waitFor(() => expect(connection.status.attempt).toBeGreaterThanOrEqual(3));
    expect(connection.status.phase).toBe('reconnecting');
  });

  it('reports a token that no sub-protocol can carry as unauthorized without connecting', async () => {
    gateway = await startStandInGateway({ token });
    const { connection } = connect({ token: 'pasted with spaces' });
    connection.start();
    expect(connection.status.phase).toBe('unauthorized');
    expect(gateway.connections).toHaveLength(0);
  });

  it('reconnects after a shutdown frame once retryAfterMs has passed', async () => {
    gateway = await startStandInGateway({ token });
    const { connection, frames } = connect({ random: () => 0 });
    connection.start();
    const first = await gateway.nextConnection();
    await first.nextFrame();
    first.send({ type: 'shutdown', retryAfterMs: 50 });
    await vi.waitFor(() => expect(connection.status.phase).toBe('reconnecting'));
    const second = await gateway.nextConnection();
    expect((await second.nextFrame()).type).toBe('hello');
    expect(frames.map((frame) => frame.type)).toContain('shutdown');
  });

  it('keeps a message the stopping server refused and sends it again, same id, after reconnecting', async () => {
    gateway = await startStandInGateway({ token });
    const { connection, frames } = connect({ random: () => 0 });
    connection.start();
    const first = await gateway.nextConnection();
    await first.nextFrame();
    await vi.waitFor(() => expect(connection.status.phase).toBe('open'));
    connection.sendMessage({ clientMessageId: 'm1', conversationId: 'c1', text: 'during shutdown' });
    connection.sendMessage({ clientMessageId: 'm2', conversationId: 'c1', text: 'too long anyway' });
    await first.nextFrame();
    await first.nextFrame();
    first.send({
      type: 'error',
      code: 'shutting_down',
      message: 'the server is shutting down; retry shortly',
      retryable: true,
      clientMessageId: 'm1',
    });
    first.send({
      type: 'error',
      code: 'payload_too_large',
      message: 'too long',
      retryable: false,
      clientMessageId: 'm2',
    });
    first.send({ type: 'shutdown', retryAfterMs: 50 });
    const second = await gateway.nextConnection();
    expect((await second.nextFrame()).type).toBe('hello');
    expect(await second.nextFrame()).toEqual({
      type: 'message',
      clientMessageId: 'm1',
      conversationId: 'c1',
      text: 'during shutdown',
    });
    expect(connection.status.queued).toBe(1);
    // The refusal that will not change is shown; the shutdown one never reaches the conversation.
    expect(frames.filter((frame) => frame.type === 'error').map((frame) => frame.clientMessageId)).toEqual([
      'm2',
    ]);
  });

  it('replaces a link that stops answering pings', async () => {
    gateway = await startStandInGateway({ token, answerPings: false, welcome: { heartbeatMs: 30 } });
    const { connection } = connect();
    connection.start();
    const first = await gateway.nextConnection();
    await first.nextFrame();
    const second = await gateway.nextConnection();
    expect((await second.nextFrame()).type).toBe('hello');
    expect(first.frames.map((frame) => frame.type)).toEqual(['hello', 'ping']);
    await vi.waitFor(() => expect(first.socket.readyState).toBe(first.socket.CLOSED));
  });

  it('fails a message over the announced limit locally instead of sending it', async () => {
    gateway = await startStandInGateway({
      token,
      welcome: { limits: { maxFrameBytes: 65_536, maxTextChars: 10, messagesPerMinute: 60 } },
    });
    const { connection, frames } = connect();
    connection.start();
    const server = await gateway.nextConnection();
    await server.nextFrame();
    await vi.waitFor(() => expect(connection.status.phase).toBe('open'));
    connection.sendMessage({ clientMessageId: 'long', conversationId: 'c1', text: 'far too long for ten' });
    connection.sendMessage({ clientMessageId: 'short', conversationId: 'c1', text: 'ok' });
    expect(await server.nextFrame()).toMatchObject({ type: 'message', clientMessageId: 'short' });
    expect(frames).toContainEqual(
      expect.objectContaining({ type: 'error', code: 'payload_too_large', clientMessageId: 'long' }),
    );
    expect(connection.status.queued).toBe(1);
  });
});
