import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { parseJsonEventStream, experimental_streamLanguageModelCall as streamModelCall, zodSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

// The AI SDK's server-sent-events parsing runs patched (patches/@ai-sdk__provider-utils@5.0.81.patch:
// one transform instead of TextDecoderStream → EventSourceParserStream → JSON step, each event
// parsed and validated synchronously when its zod schema allows; patches/ai@7.0.173.patch: no
// empty TransformStream after the call's own). These feed the openai-compatible provider a
// streamed body cut at awkward places and check it reads the same completion the unpatched
// pipeline did.

const encoder = new TextEncoder();

function sse(...events: unknown[]): string {
  return events
    .map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`)
    .join('');
}

function chunk(content: string, finish: string | null = null) {
  return {
    id: 'chatcmpl-1',
    created: 1,
    model: 'scripted',
    choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: finish }],
  };
}

/** A provider whose fetch answers with `body`'s bytes cut into pieces of `pieceBytes`. */
function providerAnswering(body: string, pieceBytes: number) {
  const bytes = encoder.encode(body);
  return createOpenAICompatible({
    name: 'test',
    baseURL: 'http://model.invalid/v1',
    fetch: async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < bytes.length; at += pieceBytes)
              controller.enqueue(bytes.slice(at, at + pieceBytes));
            controller.close();
          },
        }),
        { status: 200, headers: { 'content-type': 'text/event-stream' } },
      ),
  }).chatModel('scripted');
}

async function read(body: string, pieceBytes: number) {
  const call = await streamModelCall({
    model: providerAnswering(body, pieceBytes),
    instructions: 'test',
    messages: [{ role: 'user', content: 'hi' }],
    abortSignal: new AbortController().signal,
  });
  let text = '';
  const errors: unknown[] = [];
  let finishReason: string | undefined;
  for await (const part of call.stream) {
    if (part.type === 'text-delta') text += part.text;
    if (part.type === 'error') errors.push(part.error);
    if (part.type === 'model-call-end') finishReason = part.finishReason;
  }
  return { text, errors, finishReason };
}

describe('the model stream as the AI SDK parses it', () => {
  const body = sse(chunk('Olá, '), chunk('ünïcødé 🍵 '), chunk('done', 'stop'), '[DONE]');

  it('reads the same completion however the bytes are cut (inside characters and events)', async () => {
    for (const pieceBytes of [1, 2, 3, 7, 64, body.length]) {
      expect(await read(body, pieceBytes)).toEqual({
        text: 'Olá, ünïcødé 🍵 done',
        errors: [],
        finishReason: 'stop',
      });
    }
  });

  it('reports an event that is not JSON as an error part and reads on', async () => {
    const result = await read(sse(chunk('a '), '{not json', chunk('b', 'stop')), 5);
    expect(result.text).toBe('a b');
    expect(result.errors).toHaveLength(1);
    expect(String(result.errors[0])).toMatch(/JSON/);
  });

  it('drops an event the stream ends inside, as before (no blank line, no event)', async () => {
    const result = await read(`${sse(chunk('kept', 'stop'))}data: ${JSON.stringify(chunk('cut'))}`, 4);
    expect(result.text).toBe('kept');
    expect(result.errors).toEqual([]);
  });
});

describe('a model stream whose body fails part-way', () => {
  // The patch no longer releases the body's reader once the body is done (that built a TypeError
  // with a stack each response); a body that fails must still release it and report the failure.
  it("fails the call with the body's error as its cause", async () => {
    const bytes = encoder.encode(sse(chunk('before ')));
    let pulls = 0;
    const model = createOpenAICompatible({
      name: 'test',
      baseURL: 'http://model.invalid/v1',
      fetch: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulls += 1;
              if (pulls === 1) controller.enqueue(bytes);
              else controller.error(new Error('connection reset by the model server'));
            },
          }),
          { status: 200, headers: { 'content-type': 'text/event-stream' } },
        ),
    }).chatModel('scripted');
    const call = await streamModelCall({
      model,
      instructions: 'test',
      messages: [{ role: 'user', content: 'hi' }],
      abortSignal: new AbortController().signal,
    });
    let failure: unknown;
    try {
      for await (const _part of call.stream);
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({
      message: 'Failed to process successful response',
      cause: expect.objectContaining({ message: 'connection reset by the model server' }),
    });
  });
});

/** The results parseJsonEventStream gives for `body`, fed in pieces of `pieceBytes`. */
async function parsedEvents(body: string, schema: Parameters<typeof parseJsonEventStream>[0]['schema']) {
  const bytes = encoder.encode(body);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 3) controller.enqueue(bytes.slice(at, at + 3));
      controller.close();
    },
  });
  const results: { success: boolean; value?: unknown; error?: unknown }[] = [];
  for await (const result of parseJsonEventStream({ stream, schema }) as unknown as AsyncIterable<
    (typeof results)[number]
  >)
    results.push(result);
  return results;
}

describe('validating each event', () => {
  const word = z.object({ word: z.string() });

  it('answers a synchronous zod schema without a promise, an asynchronous one with one', async () => {
    expect(zodSchema(word).validate?.({ word: 'a' })).toEqual({ success: true, value: { word: 'a' } });
    const slow = zodSchema(word.refine(async (value) => value.word !== 'no'));
    const pending = slow.validate?.({ word: 'a' });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual({ success: true, value: { word: 'a' } });
    expect(await slow.validate?.({ word: 'no' })).toMatchObject({ success: false });
  });

  it('gives each event its result in order, failures included, with a synchronous schema', async () => {
    const results = await parsedEvents(
      sse({ word: 'a' }, { word: 1 }, '{oops', { word: 'b' }, '[DONE]'),
      word,
    );
    expect(results.map((result) => result.success)).toEqual([true, false, false, true]);
    expect(results[0]?.value).toEqual({ word: 'a' });
    expect(String(results[1]?.error)).toMatch(/Type validation failed/);
    expect(String(results[2]?.error)).toMatch(/JSON/);
    expect(results[3]?.value).toEqual({ word: 'b' });
  });

  it('awaits an asynchronous check and keeps the events in order around it', async () => {
    const checked: string[] = [];
    const schema = z.object({
      word: z.string().refine(async (value) => {
        checked.push(value);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return value !== 'no';
      }),
    });
    const results = await parsedEvents(sse({ word: 'a' }, { word: 'no' }, { word: 'b' }), schema);
    expect(results.map((result) => [result.success, result.value])).toEqual([
      [true, { word: 'a' }],
      [false, undefined],
      [true, { word: 'b' }],
    ]);
    // Only the first event meets the check twice: the synchronous attempt stops at its promise,
    // and the schema is parsed asynchronously from then on.
    expect(checked).toEqual(['a', 'a', 'no', 'b']);
  });
});

describe('leaving a model stream early', () => {
  it('cancels the response body when the reader stops after the first part', async () => {
    let cancelled: unknown = 'not cancelled';
    const bytes = encoder.encode(sse(chunk('first ')));
    const model = createOpenAICompatible({
      name: 'test',
      baseURL: 'http://model.invalid/v1',
      fetch: async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(bytes);
            },
            cancel(reason) {
              cancelled = reason;
            },
          }),
          { status: 200, headers: { 'content-type': 'text/event-stream' } },
        ),
    }).chatModel('scripted');
    const call = await streamModelCall({
      model,
      instructions: 'test',
      messages: [{ role: 'user', content: 'hi' }],
      abortSignal: new AbortController().signal,
    });
    let text = '';
    for await (const part of call.stream) {
      if (part.type === 'text-delta') {
        text += part.text;
        break;
      }
    }
    expect(text).toBe('first ');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(cancelled).toBeUndefined();
  });
});
