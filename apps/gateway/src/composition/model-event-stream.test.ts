import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { experimental_streamLanguageModelCall as streamModelCall } from 'ai';
import { describe, expect, it } from 'vitest';

// The AI SDK's server-sent-events parsing runs patched (patches/@ai-sdk__provider-utils@5.0.81.patch:
// one transform instead of TextDecoderStream → EventSourceParserStream → JSON step). These feed
// the openai-compatible provider a streamed body cut at awkward places and check it reads the
// same completion the unpatched pipeline did.

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
