import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEditStreamer } from './create-edit-streamer.ts';
import { hasBalancedFences } from './has-balanced-fences.ts';

/** An in-memory chat that holds messages by id, like the platform would. */
function fakeChat(options: { failEdits?: number; failSends?: number } = {}) {
  const messages = new Map<string, string>();
  const operations: string[] = [];
  let failEdits = options.failEdits ?? 0;
  let failSends = options.failSends ?? 0;
  let next = 1;
  return {
    messages,
    operations,
    async send(text: string, index: number): Promise<string> {
      if (failSends > 0) {
        failSends -= 1;
        throw new Error('send failed');
      }
      const id = `m${next++}`;
      messages.set(id, text);
      operations.push(`send ${id}#${index}: ${text}`);
      return id;
    },
    async edit(id: string, text: string): Promise<void> {
      if (failEdits > 0) {
        failEdits -= 1;
        throw new Error('edit failed');
      }
      if (!messages.has(id)) throw new Error(`no message ${id}`);
      if (messages.get(id) === text) throw new Error('message is not modified');
      messages.set(id, text);
      operations.push(`edit ${id}: ${text}`);
    },
    async remove(id: string): Promise<void> {
      messages.delete(id);
      operations.push(`remove ${id}`);
    },
  };
}

describe('createEditStreamer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the first text at once and coalesces later text into one edit per interval', async () => {
    const chat = fakeChat();
    const streamer = createEditStreamer({
      maxLength: 100,
      minIntervalMs: 1000,
      ...chat,
      now: () => Date.now(),
    });
    streamer.push('Hel');
    await vi.advanceTimersByTimeAsync(0);
    expect(chat.operations).toEqual(['send m1#0: Hel']);
    streamer.push('Hello');
    streamer.push('Hello, wor');
    streamer.push('Hello, world');
    await vi.advanceTimersByTimeAsync(999);
    expect(chat.operations).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(chat.operations).toEqual(['send m1#0: Hel', 'edit m1: Hello, world']);
    const ids = await streamer.finish('Hello, world!');
    expect(ids).toEqual(['m1']);
    expect(chat.operations.at(-1)).toBe('edit m1: Hello, world!');
    expect([...chat.messages.values()]).toEqual(['Hello, world!']);
  });

  it('does not edit when the text did not change', async () => {
    const chat = fakeChat();
    const streamer = createEditStreamer({ maxLength: 100, minIntervalMs: 10, ...chat });
    streamer.push('Same');
    await vi.advanceTimersByTimeAsync(50);
    streamer.push('Same');
    await vi.advanceTimersByTimeAsync(50);
    expect(await streamer.finish('Same')).toEqual(['m1']);
    expect(chat.operations).toEqual(['send m1#0: Same']);
  });

  it('continues in new messages past maxLength, keeping code fences balanced', async () => {
    const chat = fakeChat();
    const streamer = createEditStreamer({ maxLength: 60, minIntervalMs: 100, ...chat });
    let text = 'Here is code:\n\n```ts\n';
    for (let line = 0; line < 12; line += 1) {
      text += `const v${line} = ${line};\n`;
      streamer.push(text);
      await vi.advanceTimersByTimeAsync(100);
    }
    text += '```\n\nThat is all.';
    const ids = await streamer.finish(text);
    expect(ids.length).toBeGreaterThan(2);
    const final = ids.map((id) => chat.messages.get(id) ?? '');
    for (const message of final) {
      expect(message.length).toBeLessThanOrEqual(60);
      expect(hasBalancedFences(message)).toBe(true);
    }
    expect(final.join('\n')).toContain('const v11 = 11;');
    expect(final.at(-1)).toContain('That is all.');
  });

  it('measures maxLength on the rendered text', async () => {
    const chat = fakeChat();
    const render = (markdown: string) => markdown.replaceAll('&', '&amp;');
    const streamer = createEditStreamer({ maxLength: 20, minIntervalMs: 0, ...chat, render });
    const ids = await streamer.finish('a & b & c & d & e & f');
    const delivered = ids.map((id) => chat.messages.get(id) ?? '');
    expect(delivered.join(' ')).toBe('a &amp; b &amp; c &amp; d &amp; e &amp; f');
    for (const message of delivered) expect(message.length).toBeLessThanOrEqual(20);
  });

  it('reports streaming failures, retries with newer text, and delivers the final text', async () => {
    const chat = fakeChat({ failSends: 1, failEdits: 1 });
    const errors: string[] = [];
    const streamer = createEditStreamer({
      maxLength: 100,
      minIntervalMs: 100,
      ...chat,
      onError: (error) => errors.push((error as Error).message),
    });
    streamer.push('one');
    await vi.advanceTimersByTimeAsync(0);
    streamer.push('one two');
    await vi.advanceTimersByTimeAsync(100);
    streamer.push('one two three');
    await vi.advanceTimersByTimeAsync(100);
    expect(errors).toEqual(['send failed', 'edit failed']);
    expect(await streamer.finish('one two three four')).toEqual(['m1']);
    expect(chat.messages.get('m1')).toBe('one two three four');
  });

  it('rejects finish when the final delivery fails', async () => {
    const chat = fakeChat({ failSends: 1 });
    const streamer = createEditStreamer({ maxLength: 100, minIntervalMs: 100, ...chat });
    await expect(streamer.finish('final')).rejects.toThrow('send failed');
  });

  it('waits for an in-flight send before the final edit', async () => {
    const chat = fakeChat();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const streamer = createEditStreamer({
      maxLength: 100,
      minIntervalMs: 100,
      send: async (text, index) => {
        await gate;
        return chat.send(text, index);
      },
      edit: chat.edit,
    });
    streamer.push('partial');
    const finished = streamer.finish('complete');
    release();
    expect(await finished).toEqual(['m1']);
    expect(chat.operations).toEqual(['send m1#0: partial', 'edit m1: complete']);
  });

  it('removes messages the final text no longer needs and ignores pushes after finish', async () => {
    const chat = fakeChat();
    const streamer = createEditStreamer({ maxLength: 10, minIntervalMs: 0, ...chat });
    streamer.push('aaaa bbbb cccc');
    await vi.advanceTimersByTimeAsync(0);
    expect(chat.messages.size).toBe(2);
    expect(await streamer.finish('short')).toEqual(['m1']);
    streamer.push('late text that must not be sent');
    await vi.advanceTimersByTimeAsync(1000);
    expect(chat.operations.slice(-2)).toEqual(['edit m1: short', 'remove m2']);
    expect(await streamer.finish('other')).toEqual(['m1']);
  });
});
