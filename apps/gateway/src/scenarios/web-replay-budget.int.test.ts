import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../testing/test-gateway.ts';

// What a web client that was away gets back when it reconnects depends on NEXUS_WEB_REPLAY_MAX_BYTES:
// twelve replies of 100 KB fit in the default 64 MiB, not in 1 MiB.
const REPLY = 'x'.repeat(100_000);

let model: ScriptedModelServer;

beforeAll(async () => {
  model = await startScriptedModelServer();
  model.setResponder(() => ({ text: REPLY }));
});
afterAll(async () => {
  await model?.close();
});

async function resumeAfterTwelveReplies(env: Record<string, string>) {
  const gateway = await startTestGateway({ modelBaseUrl: model.baseUrl, env });
  try {
    const clientId = 'replay-owner';
    const first = await WebChatClient.connect({ url: gateway.url, token: gateway.token, clientId });
    for (let index = 0; index < 12; index += 1) {
      const reply = await first.ask('long', `message ${index}`);
      expect(reply.text).toBe(REPLY);
    }
    await first.close();
    const back = await WebChatClient.connect({
      url: gateway.url,
      token: gateway.token,
      clientId,
      resume: { conversationId: 'long', lastSeq: 0 },
    });
    const resumed = await back.waitFor((frame) => frame.type === 'resumed');
    const replayedEnds = back.frames.filter(
      (frame) => frame.type === 'event' && frame.event.type === 'reply.end',
    ).length;
    await back.close();
    return { resumed, replayedEnds };
  } finally {
    await gateway.dispose();
  }
}

describe('NEXUS_WEB_REPLAY_MAX_BYTES', () => {
  it('keeps every missed reply for a returning client by default', async () => {
    const { resumed, replayedEnds } = await resumeAfterTwelveReplies({});
    expect(resumed).toMatchObject({ type: 'resumed', conversationId: 'long', complete: true });
    expect(replayedEnds).toBe(12);
  });

  it('keeps only what fits in a 1 MiB budget, and says the replay is incomplete', async () => {
    const { resumed, replayedEnds } = await resumeAfterTwelveReplies({
      NEXUS_WEB_REPLAY_MAX_BYTES: String(1024 * 1024),
    });
    expect(resumed).toMatchObject({ type: 'resumed', conversationId: 'long', complete: false });
    expect(replayedEnds).toBeGreaterThan(0);
    expect(replayedEnds).toBeLessThan(12);
  });
});
