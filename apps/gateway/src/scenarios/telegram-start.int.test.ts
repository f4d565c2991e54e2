import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isChatTurn, memoryAwareResponder, startMemoryGateway } from '../testing/memory-test-support.ts';

// Telegram's /start, through grammY against the fake Bot API: a person the assistant knows is
// greeted by what it remembers of them, a stranger gets the introduction. Neither asks the model.
const ana = { id: 31, type: 'private', firstName: 'Ana' } as const;
const ben = { id: 32, type: 'private', firstName: 'Ben' } as const;

let model: ScriptedModelServer;
let telegram: FakeTelegram;
let gateway: Awaited<ReturnType<typeof startMemoryGateway>>;

beforeAll(async () => {
  model = await startScriptedModelServer();
  model.setResponder(memoryAwareResponder);
  telegram = await startFakeTelegram();
  gateway = await startMemoryGateway({
    modelBaseUrl: model.baseUrl,
    env: {
      NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
      NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
      NEXUS_TELEGRAM_DM_POLICY: 'open',
    },
  });
});
afterAll(async () => {
  await gateway?.dispose();
  await Promise.all([telegram?.close(), model?.close()]);
});

async function say(chat: typeof ana | typeof ben, text: string): Promise<string> {
  const before = telegram.botMessages(chat.id).length;
  telegram.pushMessage({ chat, text });
  const messages = await telegram.waitFor(
    () => {
      const sent = telegram.botMessages(chat.id);
      return sent.length > before ? sent : undefined;
    },
    { timeoutMs: 15_000 },
  );
  await gateway.core.whenIdle();
  return messages.at(-1)?.text ?? '';
}
const chatTurns = () => model.chatRequests().filter((request) => isChatTurn(request.body as never)).length;

describe('/start on Telegram', () => {
  it('introduces the assistant to a stranger', async () => {
    const reply = await say(ben, '/start');
    expect(reply).toMatch(/^Hi, I'm your assistant\. I remember what you tell me about yourself/u);
    expect(reply).toContain('/memories');
    expect(reply).not.toContain('Welcome back');
  });

  it('greets a person it knows by what it remembers of them', async () => {
    await say(ana, "I'm vegetarian and I live in Lisbon");
    await expect
      .poll(async () => (await gateway.memoriesOf('telegram:31')).length, { timeout: 15_000 })
      .toBe(2);
    const turnsBefore = chatTurns();
    const reply = await say(ana, '/start');
    expect(reply).toMatch(/^Welcome back, Ana! I remember you\. Among other things:\n/u);
    // The Markdown list as Telegram shows it.
    expect(reply).toMatch(/^• Is vegetarian$/mu);
    expect(reply).toMatch(/^• Lives in Lisbon$/mu);
    expect(reply).toContain('/forget-me deletes all of it');
    expect(reply).not.toContain("Hi, I'm your assistant");
    expect(chatTurns()).toBe(turnsBefore);
    // Ben is still a stranger: what Ana told stays hers.
    const benAgain = await say(ben, '/start');
    expect(benAgain).not.toContain('Lisbon');
  });
});
