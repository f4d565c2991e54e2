import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../testing/test-gateway.ts';

// Finding 2 of issue 41: attachments that are then refused must not reach the disk. One person
// sends 100 messages, each a 20 MB file no reader accepts; the media folder must stay within its
// quota, and the gateway must answer each message and then a plain one.

const MB = 1024 * 1024;
const FOLDER_CAP = 30 * MB;
const CHAT = 5150;

let model: ScriptedModelServer;
let telegram: FakeTelegram;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  model = await startScriptedModelServer();
  telegram = await startFakeTelegram();
  gateway = await startTestGateway({
    modelBaseUrl: model.baseUrl,
    env: {
      NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
      NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
      NEXUS_TELEGRAM_DM_POLICY: 'open',
      NEXUS_RATE_LIMIT_PER_MINUTE: '100000',
      NEXUS_RATE_LIMIT_BURST: '1000',
      NEXUS_GLOBAL_RATE_LIMIT_PER_MINUTE: '100000',
      NEXUS_GLOBAL_RATE_LIMIT_BURST: '1000',
      NEXUS_MEDIA_MAX_TOTAL_BYTES: String(FOLDER_CAP),
      NEXUS_MEDIA_REFUSED_PER_DAY: '20',
    },
  });
}, 60_000);

afterAll(async () => {
  await gateway?.dispose();
  await Promise.all([telegram?.close(), model?.close()]);
});

async function folderBytes(directory: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true }).catch(() => []))
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  return total;
}

describe('refused attachments', () => {
  it('100 messages of refused 20 MB files leave the media folder within its quota, each answered', async () => {
    const mediaFolder = join(gateway.config.dataDir, 'media');
    // Four different files (random bytes: no type any reader accepts), sent in turn, so the
    // content-hash de-duplication cannot hide what is written.
    const files = [1, 2, 3, 4].map((index) =>
      telegram.addFile({ content: randomBytes(20 * MB - 1024), filePath: `documents/archive_${index}.bin` }),
    );
    let mostOnDisk = 0;
    for (let index = 0; index < 100; index += 1) {
      const file = files[index % files.length];
      if (!file) throw new Error('no file');
      telegram.pushMessage({
        chat: { id: CHAT, type: 'private' },
        document: { file, fileName: 'archive.bin' },
      });
      const reply = await telegram.waitFor(() => telegram.botMessages(CHAT)[index], { timeoutMs: 60_000 });
      // Before the allowance: why the file was refused; after it: the allowance sentence.
      expect(reply?.text).toMatch(index < 20 ? /cannot read your file/ : /not opening your attachments/);
      mostOnDisk = Math.max(mostOnDisk, await folderBytes(mediaFolder));
      expect(mostOnDisk, `after message ${index + 1}`).toBeLessThanOrEqual(FOLDER_CAP);
    }
    // Only the first 20 files were downloaded at all.
    const downloads = telegram.calls('getFile').length;
    expect(downloads).toBe(20);
    expect(mostOnDisk).toBe(0);
    expect(model.chatRequests()).toHaveLength(0);

    telegram.pushMessage({ chat: { id: CHAT, type: 'private' }, text: 'still there?' });
    const answer = await telegram.waitFor(
      () => telegram.botMessages(CHAT).find((message) => message.text.includes('Echo: still there?')),
      { timeoutMs: 30_000 },
    );
    expect(answer?.text).toContain('Echo: still there?');
  }, 300_000);
});
