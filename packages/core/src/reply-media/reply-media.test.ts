import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ReplyMediaKind } from '@nexus/protocol';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { makePng } from '@nexus/testkit/media';
import { tool } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../agent/agent.ts';
import { createNexusCore, type NexusCore } from '../nexus-core.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';
import { createRecordingChannel, testIntent } from '../testing/recording-channel.ts';
import { replyMediaOfToolOutput } from './reply-media-of.ts';

let server: ScriptedModelServer;
const cores: NexusCore[] = [];

beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await Promise.all(cores.splice(0).map((core) => core.shutdown({ deadlineMs: 1000 })));
  await server.close();
});

const png = Buffer.from(makePng(8, 8));

/** A tool in the MCP content shape: a caption for the model, the chart as an image part. */
const drawChart = tool({
  description: 'Draws a chart',
  inputSchema: z.object({ title: z.string() }),
  execute: async ({ title }) => ({
    content: [
      { type: 'text', text: `Chart "${title}" drawn.` },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
    ],
  }),
  // The model gets the text, never the bytes: a base64 image would cost thousands of tokens.
  toModelOutput: ({ output }) => ({
    type: 'text',
    value: output.content.map((part) => ('text' in part ? part.text : `[${part.type}]`)).join('\n'),
  }),
});

function setUp(mediaOut?: ReplyMediaKind[]) {
  const channel = createRecordingChannel();
  const sessionStore = createSqliteSessionStore({ path: ':memory:' });
  const model = createOpenAICompatible({ baseURL: server.baseUrl, name: 'scripted' })('scripted-model');
  const core = createNexusCore({
    sessionStore,
    agent: createAgent({ model }),
    outsideTools: () => ({ draw_chart: drawChart }),
  });
  const { capabilities } = channel.adapter;
  core.registerChannel(
    mediaOut ? { ...channel.adapter, capabilities: { ...capabilities, mediaOut } } : channel.adapter,
  );
  cores.push(core);
  return { core, channel, sessionStore };
}

describe('replies with media', () => {
  it('hands an image a tool returned to the channel as reply.media with the exact bytes', async () => {
    const { core, channel, sessionStore } = setUp();
    server.enqueue(
      { toolCalls: [{ name: 'draw_chart', arguments: { title: 'sales' } }] },
      { text: 'Here is your chart.' },
    );
    expect(await core.intake(testIntent({ id: 'm1', text: 'draw the sales chart' }))).toEqual({
      status: 'accepted',
    });
    await core.whenIdle();

    const events = channel.deliveriesFor('m1').flatMap((delivery) => delivery.events);
    const media = events.filter((event) => event.type === 'reply.media');
    expect(media).toHaveLength(1);
    const [event] = media;
    if (event?.type !== 'reply.media') throw new Error('no media event');
    expect(event.media).toMatchObject({ kind: 'image', mimeType: 'image/png', name: 'file-1.png' });
    expect(Buffer.from(event.media.base64, 'base64').equals(png)).toBe(true);
    expect(event.media.sizeBytes).toBe(png.length);
    // The text still ends the reply; the media came before it, while the tool ran.
    expect(events.at(-1)).toMatchObject({ type: 'reply.end', text: 'Here is your chart.' });

    const toolMessage = JSON.stringify(server.chatRequests()[1]?.body);
    expect(toolMessage).toContain('Chart \\"sales\\" drawn.');
    expect(toolMessage).not.toContain(png.toString('base64').slice(0, 40));

    const [turn] = await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 5 });
    expect(turn?.replyText).toBe('Here is your chart.\n[sent: file-1.png]');
  });

  it('names an image the channel cannot send (capabilities.mediaOut) at the reply’s end instead', async () => {
    const { core, channel, sessionStore } = setUp(['file']);
    server.enqueue(
      { toolCalls: [{ name: 'draw_chart', arguments: { title: 'sales' } }] },
      { text: 'Here is your chart.' },
    );
    await core.intake(testIntent({ id: 'm1', text: 'draw the sales chart' }));
    await core.whenIdle();

    const events = channel.deliveriesFor('m1').flatMap((delivery) => delivery.events);
    expect(events.some((event) => event.type === 'reply.media')).toBe(false);
    const said = 'Here is your chart.\n\n(I made "file-1.png", but this chat cannot receive images.)';
    expect(events.at(-1)).toMatchObject({ type: 'reply.end', text: said });
    const [turn] = await sessionStore.history({ conversationKey: 'test:conversation-1', limit: 5 });
    expect(turn?.replyText).toBe(said);
  });

  it('finds MCP resource blobs, names them from the uri, and skips text and empty parts', () => {
    const found = replyMediaOfToolOutput(
      {
        content: [
          { type: 'text', text: 'done' },
          {
            type: 'resource',
            resource: { uri: 'file:///tmp/report.pdf', mimeType: 'application/pdf', blob: 'JVBERi0xLjQK' },
          },
          { type: 'image', data: '', mimeType: 'image/png' },
        ],
      },
      0,
    );
    expect(found).toEqual([
      { kind: 'file', mimeType: 'application/pdf', name: 'report.pdf', sizeBytes: 9, base64: 'JVBERi0xLjQK' },
    ]);
    expect(replyMediaOfToolOutput('plain text', 0)).toEqual([]);
  });
});
