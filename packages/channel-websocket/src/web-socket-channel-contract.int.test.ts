import { describeChannelContract } from '@nexus/testkit/channel';
import { startHarness, TestClient } from './testing/channel-test-harness.ts';

// A web client cannot refuse a reply (it is queued and replayed on resume), so the refused-send
// case skips; the web has no groups, so the group-gate case skips on `groups: false`.
describeChannelContract({
  name: 'web',
  async start(sink) {
    const harness = await startHarness();
    harness.setSink(sink);
    const clients = [await TestClient.greeted(harness.url, 'contract-client')];
    let sent = 0;
    const frames = () => clients.flatMap((client) => client.eventFrames());
    return {
      channel: harness.channel,
      async send(message) {
        sent += 1;
        const frame = {
          type: 'message',
          clientMessageId: `m-${sent}`,
          conversationId: 'contract',
          text: message.text,
        };
        clients.at(-1)!.send(frame);
        return frame;
      },
      async redeliver(handle) {
        clients.at(-1)!.send(handle);
      },
      received: (conversationId) =>
        frames().flatMap((frame) =>
          frame.conversationId === conversationId && frame.event.type === 'reply.end'
            ? [frame.event.text]
            : [],
        ),
      edits: () => 0,
      typing: () => frames().filter((frame) => frame.event.type === 'typing').length,
      async dropConnection() {
        await clients.at(-1)!.close();
        clients.push(await TestClient.greeted(harness.url, 'contract-client'));
      },
      async close() {
        for (const client of clients) await client.close();
        await harness.close();
      },
    };
  },
});
