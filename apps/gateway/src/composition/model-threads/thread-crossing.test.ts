import { MessageChannel } from 'node:worker_threads';
import { APICallError, JSONParseError, TypeValidationError } from 'ai';
import { describe, expect, it } from 'vitest';
import { toThreadError } from './thread-error-record.ts';
import { fromThreadError } from './thread-errors.ts';
import { postMessageTo, receiveMessage } from './thread-post.ts';

/** `value` through a real MessagePort, as a model thread's messages go. */
async function across(value: unknown): Promise<unknown> {
  const { port1, port2 } = new MessageChannel();
  const received = new Promise<unknown>((resolve) => port2.once('message', resolve));
  postMessageTo(port1, value);
  const data = await received;
  port1.close();
  return receiveMessage(data);
}

describe('errors crossing to and from a model thread', () => {
  it('arrive as the AI SDK class they were, with their fields and cause', async () => {
    const sent = new APICallError({
      message: 'Unauthorized',
      url: 'http://model.invalid/v1/chat/completions',
      requestBodyValues: { model: 'm' },
      statusCode: 401,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: '{"error":{"message":"Incorrect API key provided."}}',
      cause: new TypeError('inner'),
    });
    const got = fromThreadError(await across(toThreadError(sent))) as APICallError;
    expect(APICallError.isInstance(got)).toBe(true);
    expect(got).toMatchObject({
      message: 'Unauthorized',
      statusCode: 401,
      isRetryable: false,
      url: sent.url,
      requestBodyValues: { model: 'm' },
      responseHeaders: sent.responseHeaders,
      responseBody: sent.responseBody,
      stack: sent.stack,
    });
    expect(got.cause).toBeInstanceOf(TypeError);
    const parse = fromThreadError(
      await across(toThreadError(new JSONParseError({ text: '{x', cause: sent }))),
    );
    expect(JSONParseError.isInstance(parse)).toBe(true);
    expect((parse as JSONParseError).text).toBe('{x');
    const validation = new TypeValidationError({ value: { a: 1 }, cause: new Error('bad') });
    const rebuilt = fromThreadError(await across(toThreadError(validation)));
    expect(TypeValidationError.isInstance(rebuilt)).toBe(true);
    expect((rebuilt as Error).message).toBe(validation.message);
  });

  it('keep a native class, its code and its cause chain (what core reads to tell a network failure)', async () => {
    const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const got = fromThreadError(
      await across(toThreadError(new TypeError('fetch failed', { cause: socket }))),
    );
    expect(got).toBeInstanceOf(TypeError);
    expect((got as Error).message).toBe('fetch failed');
    expect((got as Error).cause).toMatchObject({ message: socket.message, code: 'ECONNREFUSED' });
    const timeout = fromThreadError(await across(toThreadError(new DOMException('late', 'TimeoutError'))));
    expect(timeout).toBeInstanceOf(DOMException);
    expect((timeout as DOMException).name).toBe('TimeoutError');
  });

  it('pass what is not an Error as it is (a provider error payload in a stream part)', async () => {
    const payload = { message: 'overloaded', code: 529 };
    expect(fromThreadError(await across(toThreadError(payload)))).toEqual(payload);
  });
});

describe('a message holding a URL', () => {
  it('crosses with the URL rebuilt, which a structured clone alone refuses', async () => {
    const message = {
      prompt: [
        {
          role: 'user',
          content: [{ type: 'file', data: { type: 'url', url: new URL('https://a.example/i.png') } }],
        },
      ],
      bytes: new Uint8Array([1, 2, 3]),
      at: new Date(0),
    };
    expect(() => structuredClone(message)).toThrow();
    const got = (await across(message)) as typeof message;
    expect(got.prompt[0]!.content[0]!.data.url).toBeInstanceOf(URL);
    expect(got.prompt[0]!.content[0]!.data.url.href).toBe('https://a.example/i.png');
    expect(got.bytes).toEqual(new Uint8Array([1, 2, 3]));
    expect(got.at).toEqual(new Date(0));
  });
});
