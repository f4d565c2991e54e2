import type { ServerResponse } from 'node:http';
import {
  type ChatCompletionRequest,
  type ScriptedResponse,
  splitIntoWordChunks,
} from './scripted-response.ts';
import { waitUnlessClosed } from './wait-unless-closed.ts';

export interface WriteChatCompletionOptions {
  response: ServerResponse;
  request: ChatCompletionRequest;
  scripted: ScriptedResponse;
  completionId: string;
  chunkDelayMs: number;
  nextToolCallId: () => string;
}

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Writes a successful chat completion, as SSE chunks when the client asked to stream. */
export async function writeChatCompletion(options: WriteChatCompletionOptions): Promise<void> {
  const { response, request, scripted } = options;
  const textChunks =
    scripted.chunks ?? (scripted.text === undefined ? [] : splitIntoWordChunks(scripted.text));
  const text = textChunks.join('');
  const toolCalls: WireToolCall[] = (scripted.toolCalls ?? []).map((call) => ({
    id: call.id ?? options.nextToolCallId(),
    type: 'function',
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    },
  }));
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  const usage = usageOf(request, text, toolCalls);
  const model = typeof request.model === 'string' ? request.model : 'scripted-model';
  const created = Math.floor(Date.now() / 1000);

  if (request.stream !== true) {
    if (scripted.dropConnection) return void response.destroy();
    const message = {
      role: 'assistant',
      content: toolCalls.length > 0 && text === '' ? null : text,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    };
    const body = {
      id: options.completionId,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finishReason }],
      usage,
    };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
    return;
  }

  const base = { id: options.completionId, object: 'chat.completion.chunk', created, model };
  const frames: string[] = [];
  frames.push(
    sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
  );
  for (const chunk of textChunks) {
    frames.push(sse({ ...base, choices: [{ index: 0, delta: { content: chunk }, finish_reason: null }] }));
  }
  toolCalls.forEach((call, index) => {
    // Name first, arguments in a second chunk, as real providers stream them.
    const head = {
      index,
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: '' },
    };
    const tail = { index, function: { arguments: call.function.arguments } };
    frames.push(
      sse({ ...base, choices: [{ index: 0, delta: { tool_calls: [head] }, finish_reason: null }] }),
    );
    frames.push(
      sse({ ...base, choices: [{ index: 0, delta: { tool_calls: [tail] }, finish_reason: null }] }),
    );
  });
  const closing = [
    sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finishReason }], usage }),
    'data: [DONE]\n\n',
  ];

  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  if (options.chunkDelayMs <= 0) {
    response.write(frames.join(''));
  } else {
    for (const [index, frame] of frames.entries()) {
      if (index > 0 && !(await waitUnlessClosed(response, options.chunkDelayMs))) return;
      response.write(frame);
    }
  }
  if (scripted.dropConnection) {
    // Let the text chunks reach the client first, so it sees a stream cut after partial output.
    await new Promise<void>((resolve) => response.write('', () => resolve()));
    response.destroy();
    return;
  }
  response.end(closing.join(''));
}

function sse(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

function usageOf(request: ChatCompletionRequest, text: string, toolCalls: WireToolCall[]) {
  const promptCharacters = JSON.stringify(request.messages ?? []).length;
  const completionCharacters =
    text.length + toolCalls.reduce((sum, call) => sum + call.function.arguments.length, 0);
  const promptTokens = Math.ceil(promptCharacters / 4);
  const completionTokens = Math.ceil(completionCharacters / 4);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}
