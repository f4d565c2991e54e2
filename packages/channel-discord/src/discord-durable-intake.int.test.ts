import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelAdapter, IntakeResult, IntentInput } from '@nexus/protocol';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conversationFor, createTestChannel, replyEvents, textReply } from './testing/discord-harness.ts';

let fake: FakeDiscord;
let folder: string;
let cursorPath: string;
const running: ChannelAdapter[] = [];

beforeEach(async () => {
  fake = await startFakeDiscord();
  folder = await mkdtemp(join(tmpdir(), 'nexus-discord-cursor-'));
  cursorPath = join(folder, 'discord-cursor.sqlite');
});
afterEach(async () => {
  for (const channel of running.splice(0)) await channel.stop();
  await fake.close();
  await rm(folder, { recursive: true, force: true });
});

async function startChannel(sink: (intent: IntentInput) => Promise<IntakeResult>): Promise<ChannelAdapter> {
  const channel = createTestChannel(fake, { cursorPath, intakeRetryDelayMs: 50 });
  running.push(channel);
  await channel.start({ sink });
  await fake.waitFor(() => fake.isGatewayLive());
  return channel;
}

function recorder() {
  const texts: string[] = [];
  const sink = async (intent: IntentInput): Promise<IntakeResult> => {
    texts.push(intent.text);
    return { status: 'accepted' };
  };
  return { texts, sink };
}

describe('Discord intake across restarts and refusals', () => {
  it('reads back what was sent while the bot was down, after the last message core took', async () => {
    const first = recorder();
    const channel = await startChannel(first.sink);
    fake.injectDirectMessage({ content: 'before 1' });
    fake.injectDirectMessage({ content: 'before 2' });
    await fake.waitFor(() => first.texts.length === 2);
    await channel.stopIntake?.();
    await channel.stop();
    // Discord does not redeliver these to the next session.
    for (const content of ['down 1', 'down 2', 'down 3']) fake.injectDirectMessage({ content });

    const second = recorder();
    await startChannel(second.sink);
    await fake.waitFor(() => second.texts.length === 3);
    fake.injectDirectMessage({ content: 'live' });
    await fake.waitFor(() => second.texts.length === 4);
    expect(second.texts).toEqual(['down 1', 'down 2', 'down 3', 'live']);
    const history = fake.requests.filter(
      (request) => request.method === 'GET' && request.path.endsWith('/messages'),
    );
    expect(history.length).toBeGreaterThanOrEqual(1);
    expect(history[0]?.query).toContain('after=');
  });

  it('fetches a message again after a retryable refusal and hands it over once', async () => {
    const texts: string[] = [];
    const answers: IntakeResult[] = [{ status: 'rejected', code: 'shutting_down', message: 'later' }];
    await startChannel(async (intent) => {
      texts.push(intent.text);
      return answers.shift() ?? { status: 'accepted' };
    });
    fake.injectDirectMessage({ content: 'refused once' });
    await fake.waitFor(() => texts.length === 2, { timeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(texts).toEqual(['refused once', 'refused once']);
  });

  it('stopIntake ignores new messages, keeps delivering, and leaves them for the next process', async () => {
    const first = recorder();
    const channel = await startChannel(first.sink);
    fake.injectDirectMessage({ content: 'taken' });
    await fake.waitFor(() => first.texts.length === 1);
    await channel.stopIntake?.();
    await channel.stopIntake?.();
    fake.injectDirectMessage({ content: 'after stopIntake' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(first.texts).toEqual(['taken']);
    const intent = {
      id: '1',
      channel: 'discord',
      conversation: { id: fake.guild.textChannelId, kind: 'group' as const },
      sender: { platformId: fake.defaultUser.id },
      userId: `discord:${fake.defaultUser.id}`,
      text: 'x',
    } as IntentInput;
    await channel.deliver({
      conversation: conversationFor(intent),
      events: replyEvents(...textReply('still here')),
    });
    expect(fake.sentMessages.map((message) => message.content)).toContain('still here');
    await channel.stop();

    const second = recorder();
    await startChannel(second.sink);
    await fake.waitFor(() => second.texts.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(second.texts).toEqual(['after stopIntake']);
  });

  it('a reply delivered again for the same message (a replay after a crash) reuses the first message', async () => {
    const first = recorder();
    const seen: IntentInput[] = [];
    const channel = await startChannel(async (intent) => {
      seen.push(intent);
      return first.sink(intent);
    });
    fake.injectDirectMessage({ content: 'answer me' });
    await fake.waitFor(() => seen.length === 1);
    const conversation = conversationFor(seen[0]!);
    await channel.deliver({ conversation, events: replyEvents(...textReply('the answer')) });
    await channel.deliver({ conversation, events: replyEvents(...textReply('the answer')) });
    expect(fake.sentMessages.map((message) => message.content)).toEqual(['the answer']);
  });
});
