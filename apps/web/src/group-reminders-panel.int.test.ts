import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningGateway } from '@nexus/gateway';
import { launchBrowser, newPhonePage } from '@nexus/testkit/browser';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

// The Access panel's group reminders, in Chromium: a member sets a reminder in a Telegram group
// (through the fake Bot API and the scripted model's `schedule` call), the owner sees who set it
// and cancels it with one click, and the group's /reminders no longer lists it.

const team = { id: -100900, type: 'supergroup', title: 'Team' } as const;
const ana = { id: 11, is_bot: false, first_name: 'Ana' };

let workDir: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let model: ScriptedModelServer;
let telegram: FakeTelegram;
let gateway: RunningGateway;

beforeAll(async () => {
  const built = await buildWebClientForTest('group-reminders-web');
  workDir = built.workDir;
  const webDistDir = built.webDistDir;
  browser = await launchBrowser();
  model = await startScriptedModelServer();
  model.setResponder((request: ChatCompletionRequest) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: 'Done.' };
    const wanted = /schedule: (\{.*\})\s*$/.exec(String(last?.content ?? ''));
    return wanted ? { toolCalls: [{ name: 'schedule', arguments: wanted[1] }] } : { text: 'Hello.' };
  });
  telegram = await startFakeTelegram();
  gateway = await startWebTestGateway({
    webDistDir,
    dataDir: join(workDir, 'data'),
    model,
    env: {
      NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
      NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
      NEXUS_GROUP_ALLOWLIST: `telegram:${team.id}`,
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await browser?.close();
  await Promise.all([telegram?.close(), model?.close()]);
  await rm(workDir, { recursive: true, force: true });
});

async function groupSays(text: string): Promise<string> {
  const before = telegram.botMessages(team.id).length;
  telegram.pushMessage({ chat: team, from: ana, text });
  const sent = await telegram.waitFor(
    () => (telegram.botMessages(team.id).length > before ? telegram.botMessages(team.id) : undefined),
    { timeoutMs: 15_000 },
  );
  await gateway.core.whenIdle();
  return sent.at(-1)?.text ?? '';
}

describe('group reminders in the Access panel', () => {
  it('shows who set each one and lets the owner cancel it', async () => {
    expect(
      await groupSays('@nexus_test_bot schedule: {"text":"Water the office plants","cron":"0 9 * * 1"}'),
    ).toBe('Done.');
    const page = await newPhonePage(browser);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      await page.goto(`${gateway.url}/#token=${gateway.token}`);
      await page.getByTestId('more-button').click();
      await page.getByTestId('pairing-button').click();
      const reminder = page.getByTestId('group-reminder');
      await reminder.waitFor();
      const text = await reminder.textContent();
      expect(text).toContain('Water the office plants');
      expect(text).toContain(`telegram · ${team.id} · set by Ana (telegram:11)`);
      expect(text).toContain('repeats 0 9 * * 1 (UTC)');

      await reminder.getByTestId('group-reminder-cancel').click();
      await page.getByTestId('group-reminders-empty').waitFor();
      expect(await groupSays('/reminders')).toBe('This group has no reminders.');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
