import { buildDirectMessage, buildFromMeMessage } from '@nexus/testkit/whatsapp';
import { describe, expect, it } from 'vitest';
import { createHeldReceipts } from './held-receipts.ts';

function recordingLogger() {
  const warnings: string[] = [];
  const logger = {
    trace() {},
    debug() {},
    info() {},
    warn: (_fields: unknown, message?: string) => warnings.push(message ?? ''),
    error() {},
    fatal() {},
    child: () => logger,
  };
  return { logger, warnings };
}

function receiptCounter() {
  const sent: string[] = [];
  return { sent, sender: (id: string) => async () => void sent.push(id) };
}

describe('held delivery receipts', () => {
  it('sends a held receipt once, when the message is released', async () => {
    const { logger } = recordingLogger();
    const receipts = createHeldReceipts({ logger, maxHoldMs: 60_000 });
    const { sent, sender } = receiptCounter();
    const message = buildDirectMessage({ id: '3EB0A1', from: '310000000002@lid', text: 'hi' });
    expect(receipts.hold(message, sender('3EB0A1'))).toBe(true);
    await Promise.resolve();
    expect(sent).toEqual([]);
    receipts.release('3EB0A1');
    receipts.release('3EB0A1');
    await Promise.resolve();
    expect(sent).toEqual(['3EB0A1']);
    receipts.clear();
  });

  it('withholds the receipt of a message whose write failed, so WhatsApp sends it again', async () => {
    const { logger } = recordingLogger();
    const receipts = createHeldReceipts({ logger, maxHoldMs: 50 });
    const { sent, sender } = receiptCounter();
    receipts.hold(
      buildDirectMessage({ id: '3EB0B1', from: '310000000002@lid', text: 'hi' }),
      sender('3EB0B1'),
    );
    receipts.withhold('3EB0B1');
    receipts.release('3EB0B1');
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(sent).toEqual([]);
  });

  it("leaves the bot's own messages to Baileys", () => {
    const { logger } = recordingLogger();
    const receipts = createHeldReceipts({ logger, maxHoldMs: 60_000 });
    const own = buildFromMeMessage({ to: '310000000002@lid', text: 'sent from the phone' });
    expect(receipts.hold(own, async () => {})).toBe(false);
  });

  it('sends, with a warning, a receipt the upsert handler never settled', async () => {
    const { logger, warnings } = recordingLogger();
    const receipts = createHeldReceipts({ logger, maxHoldMs: 20 });
    const { sent, sender } = receiptCounter();
    receipts.hold(
      buildDirectMessage({ id: '3EB0C1', from: '310000000002@lid', text: 'hi' }),
      sender('3EB0C1'),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sent).toEqual(['3EB0C1']);
    expect(warnings).toEqual(['whatsapp: message never reached the upsert handler; receipt sent']);
  });
});
