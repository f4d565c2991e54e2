import { zonedCalendarDate } from '@nexus/core';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isExtraction, memoryAwareResponder, startMemoryGateway } from '../testing/memory-test-support.ts';

// `/timezone` through the whole gateway: the zone a person sets is the one extraction uses for
// "today". Kiritimati (UTC+14) and Pago Pago (UTC−11) are 25 hours apart, so on any day their
// dates differ, whatever the real clock says.

let model: ScriptedModelServer;
let gateway: Awaited<ReturnType<typeof startMemoryGateway>>;

beforeAll(async () => {
  model = await startScriptedModelServer();
  model.setResponder(memoryAwareResponder);
  gateway = await startMemoryGateway({ modelBaseUrl: model.baseUrl });
});
afterAll(async () => {
  await gateway?.dispose();
  await model?.close();
});

async function extractionTodayFor(
  clientId: string,
  zone: string,
): Promise<{ today: string; expected: string }> {
  const client = await WebChatClient.connect({ url: gateway.url, token: gateway.token, clientId });
  try {
    expect((await client.ask(`c-${clientId}`, `/timezone ${zone}`)).text).toContain(
      `Your time zone is now ${zone}`,
    );
    const sentAt = Date.now();
    await client.ask(`c-${clientId}`, `I have the dentist tomorrow (${clientId})`);
    const extraction = await waitForExtraction(clientId);
    const system = String(extraction.messages[0]?.content ?? '');
    return {
      today: /Today's date is ([^.]+)\./.exec(system)?.[1] ?? '',
      expected: zonedCalendarDate(sentAt, zone),
    };
  } finally {
    await client.close();
  }
}

async function waitForExtraction(marker: string): Promise<ChatCompletionRequest> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = model
      .chatRequests()
      .map((request) => request.body as ChatCompletionRequest)
      .find((request) => isExtraction(request) && JSON.stringify(request.messages).includes(`(${marker})`));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no extraction request for ${marker}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a person’s time zone in memory extraction', () => {
  it('makes "today" the date where each person is', async () => {
    const east = await extractionTodayFor('kiritimati', 'Pacific/Kiritimati');
    const west = await extractionTodayFor('pago', 'Pacific/Pago_Pago');
    expect(east.today).toBe(east.expected);
    expect(west.today).toBe(west.expected);
    expect(east.today).not.toBe(west.today);
  });
});
