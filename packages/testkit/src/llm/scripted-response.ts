/** One tool call the scripted model makes; `arguments` is JSON-encoded unless already a string. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: unknown;
}

/**
 * What the scripted model answers to one chat completion. Text goes out as `chunks` (one SSE
 * chunk each) or `text` (split into word chunks). `status` (≥ 400) turns it into an HTTP error
 * with `errorBody` (an OpenAI-style body when omitted). `hang` never answers until the client
 * gives up; `dropConnection` destroys the socket after the text chunks, before the finish chunk.
 */
export interface ScriptedResponse {
  text?: string;
  chunks?: string[];
  toolCalls?: ScriptedToolCall[];
  status?: number;
  errorBody?: unknown;
  /** Replaces the server's latency for this response (time before the first byte). */
  delayMs?: number;
  /** Replaces the server's delay between SSE chunks for this response. */
  chunkDelayMs?: number;
  hang?: boolean;
  dropConnection?: boolean;
}

export interface ChatCompletionContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface ChatCompletionMessage {
  role: string;
  content?: string | ChatCompletionContentPart[] | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** The parsed body of `POST /v1/chat/completions`, as the client sent it. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatCompletionMessage[];
  stream?: boolean;
  tools?: unknown[];
  [key: string]: unknown;
}

export type ScriptedResponder = (
  request: ChatCompletionRequest,
) => ScriptedResponse | Promise<ScriptedResponse>;

/** The text of a message, whether sent as a string or as content parts. */
export function messageText(message: ChatCompletionMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/** The default answer: `Echo: <last user message>`, streamed as word chunks. */
export function echoResponse(request: ChatCompletionRequest): ScriptedResponse {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const lastUser = messages.findLast((message) => message.role === 'user');
  return { text: `Echo: ${lastUser ? messageText(lastUser) : ''}` };
}

/** Splits text into chunks at word starts, keeping the spaces, so joining them restores it. */
export function splitIntoWordChunks(text: string): string[] {
  const chunks = text.match(/\s*\S+|\s+$/g);
  return chunks && chunks.length > 0 ? chunks : [text];
}
