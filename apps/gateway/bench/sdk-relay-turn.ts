// One relay turn through the AI SDK (bench/bare-relay.ts with `via: 'ai-sdk'`): the streamed
// completion taken by the SDK's single-call primitive over the openai-compatible provider and the
// gateway's model fetch, as packages/core/src/agent/model-steps.ts takes it, each text delta out
// as a frame. Here rather than in bench/ so that `ai` resolves from the gateway's dependencies.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { experimental_streamLanguageModelCall as streamModelCall } from 'ai';
import type { WebSocket } from 'ws';
import { createModelFetch } from '../src/composition/model-fetch.ts';

export function sdkTurnRelay(options: {
  baseUrl: string;
  model: string;
}): (socket: WebSocket, frame: { id: string; text: string }) => Promise<void> {
  const model = createOpenAICompatible({
    name: 'relay',
    baseURL: options.baseUrl,
    fetch: createModelFetch(),
    includeUsage: true,
  }).chatModel(options.model);
  return async (socket, frame) => {
    const call = await streamModelCall({
      model,
      messages: [{ role: 'user', content: frame.text }],
      abortSignal: new AbortController().signal,
    });
    let text = '';
    for await (const part of call.stream) {
      if (part.type === 'error') throw part.error;
      if (part.type !== 'text-delta') continue;
      text += part.text;
      socket.send(JSON.stringify({ type: 'delta', id: frame.id, text: part.text }));
    }
    socket.send(JSON.stringify({ type: 'end', id: frame.id, text }));
  };
}
