import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chatTurns,
  correctionNotePattern,
  lastHistory,
  livesInResponder,
  settle,
  until,
} from '../testing/edit-test-support.ts';
import { startMemoryGateway } from '../testing/memory-test-support.ts';
import { startTestGateway } from '../testing/test-gateway.ts';

// Edits end to end on Telegram: the fake Bot API sends `edited_message` updates to the real
// gateway (grammY long polling, core with its SQLite inbox and sessions, the AI SDK against the
// scripted model). Telegram tells bots nothing about deleted messages, so there is no delete here.

const team = { id: -100300, type: 'supergroup', title: 'Team' } as const;
const grace = { id: 77, is_bot: false, first_name: 'Grace' };
const adaChat = { id: 1001, type: 'private', firstName: 'Ada' } as const;

let model: ScriptedModelServer;
let telegram: FakeTelegram;
const cleanups: Array<() => Promise<void>> = [];

beforeEach(async () => {
  model = await startScriptedModelServer();
  telegram = await startFakeTelegram();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await Promise.all([telegram.close(), model.close()]);
});

const telegramEnv = () => ({
  NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
  NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
  NEXUS_TELEGRAM_DM_POLICY: 'open',
  NEXUS_GROUP_ALLOWLIST: `telegram:${team.id}`,
});

async function gatewayOn(dataDir: string) {
  const gateway = await startTestGateway({ modelBaseUrl: model.baseUrl, dataDir, env: telegramEnv() });
  cleanups.push(() => gateway.dispose());
  return gateway;
}

async function newDataDir(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'nexus-edits-telegram-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  return dataDir;
}

/** Waits until the chat holds `count` bot messages and core has nothing left to do. */
async function botMessages(gateway: { core: { whenIdle(): Promise<void> } }, chatId: number, count: number) {
  await telegram.waitFor(() => telegram.botMessages(chatId).length >= count, {
    timeoutMs: 8_000,
    what: `${count} bot messages in ${chatId}`,
  });
  await gateway.core.whenIdle();
  return telegram.botMessages(chatId);
}

/** Every update so far was confirmed (core took it, or the gate knew it), and its turn is done. */
async function drained(gateway: { core: { whenIdle(): Promise<void> } }) {
  await telegram.waitFor(() => telegram.pendingUpdateCount === 0, { timeoutMs: 8_000, what: 'confirmation' });
  await gateway.core.whenIdle();
}

describe('Telegram: an edit of the newest message', () => {
  it('is answered once more, under the edited message, with the new words only; redelivered, never again', async () => {
    const dataDir = await newDataDir();
    const gateway = await gatewayOn(dataDir);
    const asked = telegram.pushMessage({ chat: team, from: grace, text: '@nexus_test_bot what is 2+2?' });
    const [first] = await botMessages(gateway, team.id, 1);
    expect(first?.text).toContain('what is 2+2?');

    const edited = telegram.editMessage({
      chatId: team.id,
      messageId: asked.messageId,
      text: '@nexus_test_bot what is 3+3?',
    });
    const sent = await botMessages(gateway, team.id, 2);
    expect(sent).toHaveLength(2);
    const reanswer = sent[1]!;
    expect(reanswer.text).toContain('what is 3+3?');
    // A new message, answering the edited one; the first reply is left as it was.
    expect(reanswer.messageId).not.toBe(first?.messageId);
    expect(reanswer.replyToMessageId).toBe(asked.messageId);
    expect(sent[0]?.text).toBe(first?.text);
    expect(chatTurns(model)).toHaveLength(2);
    expect(lastHistory(model)).toContain('3+3');
    expect(lastHistory(model)).not.toContain('2+2');

    // Telegram sends the same update again (a lost confirmation): the gate knows it.
    telegram.replayUpdate(edited.updateId);
    await drained(gateway);

    // After a crash that lost the update mark, a new process lets the update in: core's inbox
    // knows the edit's id and answers nothing.
    await gateway.dispose();
    cleanups.splice(cleanups.length - 1, 1);
    await rm(join(dataDir, 'telegram-updates.json'), { force: true });
    const restarted = await gatewayOn(dataDir);
    telegram.replayUpdate(edited.updateId);
    await drained(restarted);
    await settle();
    expect(telegram.botMessages(team.id)).toHaveLength(2);
    expect(chatTurns(model)).toHaveLength(2);
  });
});

describe('Telegram: an edit of an older message', () => {
  it('sends nothing, and the next turn reads the corrected text and a note of the change', async () => {
    const gateway = await gatewayOn(await newDataDir());
    const flight = telegram.pushMessage({ chat: adaChat, text: 'My flight is on Monday' });
    await botMessages(gateway, adaChat.id, 1);
    telegram.pushMessage({ chat: adaChat, text: 'Pack light' });
    await botMessages(gateway, adaChat.id, 2);

    telegram.editMessage({
      chatId: adaChat.id,
      messageId: flight.messageId,
      text: 'My flight is on Tuesday',
    });
    await drained(gateway);
    await settle();
    expect(telegram.botMessages(adaChat.id)).toHaveLength(2);
    expect(chatTurns(model)).toHaveLength(2);

    telegram.pushMessage({ chat: adaChat, text: 'When do I fly?' });
    await botMessages(gateway, adaChat.id, 3);
    const history = lastHistory(model);
    expect(history).toContain('user: My flight is on Tuesday\nassistant: Echo: My flight is on Monday');
    expect(history).toMatch(correctionNotePattern('My flight is on Monday', 'My flight is on Tuesday'));
    expect(history.indexOf('Pack light')).toBeLessThan(history.indexOf('[Note:'));
    expect(history).toMatch(/user: When do I fly\?$/u);
  });
});

describe('Telegram: memory follows an edit', () => {
  it('turns the fact learned from the old words into the fact the edited message states', async () => {
    model.setResponder(livesInResponder);
    const gateway = await startMemoryGateway({
      modelBaseUrl: model.baseUrl,
      env: telegramEnv(),
    });
    cleanups.push(() => gateway.dispose());
    const said = telegram.pushMessage({ chat: adaChat, text: 'I live in Lisbon' });
    await botMessages(gateway, adaChat.id, 1);
    const contents = async () => (await gateway.memoriesOf('telegram:1001')).map((memory) => memory.content);
    await until(async () => (await contents()).length === 1, 'the first extraction');
    expect(await contents()).toEqual(['Lives in Lisbon']);

    telegram.editMessage({ chatId: adaChat.id, messageId: said.messageId, text: 'I live in Porto' });
    const sent = await botMessages(gateway, adaChat.id, 2);
    expect(sent[1]?.text).toBe('Echo: I live in Porto');
    await until(async () => (await contents())[0] === 'Lives in Porto', 'the fact to follow the edit');
    expect(await gateway.memoriesOf('telegram:1001')).toMatchObject([
      { content: 'Lives in Porto', metadata: { intentId: `${adaChat.id}:${said.messageId}` } },
    ]);
  });
});
