import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { modelCallTelemetry } from '../../tracing/model-call-telemetry.ts';
import { type PlainTextCallOptions, plainTextCall } from './plain-text-call.ts';

interface SeenRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A real provider whose fetch records each request and answers from `answers` in turn. */
function recordingModel(answers: Array<{ status: number; text?: string }>) {
  const seen: SeenRequest[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    seen.push({
      url: String(input),
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: String(init?.body),
    });
    const answer = answers.shift() ?? { status: 200, text: '{"facts":[]}' };
    if (answer.status !== 200) return new Response('{"error":{"message":"busy"}}', { status: answer.status });
    return Response.json({
      id: 'r1',
      created: 0,
      model: 'cheap-model',
      choices: [{ index: 0, message: { role: 'assistant', content: answer.text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 3 },
    });
  };
  const model = createOpenAICompatible({ baseURL: 'http://model.test/v1', name: 'scripted', fetch })(
    'cheap-model',
  );
  return { model, seen };
}

/** What extraction called before: `generateText` with these options. */
async function throughGenerateText(options: PlainTextCallOptions): Promise<string> {
  const result = await generateText({
    model: options.model,
    instructions: options.instructions,
    messages: options.messages.map((message) => ({ ...message })),
    temperature: 0,
    maxRetries: 1,
    telemetry: modelCallTelemetry(),
    ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
  });
  return result.text;
}

const CASES: Array<Omit<PlainTextCallOptions, 'model'>> = [
  {
    instructions: 'You extract lasting facts.\nRules: …',
    messages: [{ role: 'user', content: 'I live in Lisbon' }],
  },
  {
    instructions: 'Decide «ADD» or "NONE".',
    messages: [
      { role: 'user', content: 'New facts:\n1. Lives in Lisbon (fact)' },
      { role: 'assistant', content: 'not json' },
      { role: 'user', content: 'That answer was invalid: … Answer again.' },
    ],
    maxOutputTokens: 300,
  },
];

describe('plainTextCall', () => {
  it.each(CASES)('sends the provider the same request generateText sends (%#)', async (call) => {
    const direct = recordingModel([{ status: 200, text: 'a' }]);
    const sdk = recordingModel([{ status: 200, text: 'a' }]);
    expect(await plainTextCall({ ...call, model: direct.model })).toBe('a');
    expect(await throughGenerateText({ ...call, model: sdk.model })).toBe('a');
    expect(direct.seen).toHaveLength(1);
    expect(direct.seen).toEqual(sdk.seen);
    expect(direct.seen[0]?.headers['user-agent']).toMatch(/^ai\/\d/u);
  });

  it('retries a failed call once, as generateText does', async () => {
    const { model, seen } = recordingModel([{ status: 503 }, { status: 200, text: '{"facts":[]}' }]);
    const started = Date.now();
    expect(
      await plainTextCall({ model, instructions: 'x', messages: [{ role: 'user', content: 'y' }] }),
    ).toBe('{"facts":[]}');
    expect(seen).toHaveLength(2);
    expect(seen[1]).toEqual(seen[0]);
    // The SDK's backoff before its retry (2 s) is kept.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
  });

  it('gives up after the retry and does not retry what the provider refused', async () => {
    const busy = recordingModel([{ status: 503 }, { status: 503 }]);
    const call = { instructions: 'x', messages: [{ role: 'user' as const, content: 'y' }] };
    await expect(plainTextCall({ ...call, model: busy.model })).rejects.toMatchObject({
      lastError: expect.objectContaining({ statusCode: 503 }),
    });
    expect(busy.seen).toHaveLength(2);
    const refused = recordingModel([{ status: 401 }]);
    const error = await plainTextCall({ ...call, model: refused.model }).catch((caught: unknown) => caught);
    expect(APICallError.isInstance(error) && error.statusCode).toBe(401);
    expect(refused.seen).toHaveLength(1);
  }, 10_000);

  it('joins the text parts of the answer', async () => {
    const { model } = recordingModel([{ status: 200, text: '```json\n{"facts":[]}\n```' }]);
    expect(
      await plainTextCall({ model, instructions: 'x', messages: [{ role: 'user', content: 'y' }] }),
    ).toBe('```json\n{"facts":[]}\n```');
  });
});
