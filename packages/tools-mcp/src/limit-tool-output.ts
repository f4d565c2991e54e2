/**
 * What a bounded MCP tool call returns to core. Plain text when the result holds text only;
 * when it also holds images, audio or binary resources, those parts ride along in `content` (the
 * MCP shape core's reply-media step reads and sends to the person natively) while the model is
 * only ever shown `text`, through the tool's `toModelOutput`: base64 in a prompt would cost
 * thousands of tokens and tell the model nothing.
 */
export type McpToolOutput = string | { text: string; content: McpBinaryPart[] };

type McpBinaryPart = Record<string, unknown> & { type: 'image' | 'audio' | 'resource' };

/** The text of an MCP tool result, cut to `maxChars` with a note the model can read. */
export function limitToolOutput(result: unknown, maxChars: number): string {
  const text = toolResultText(result);
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[output truncated: ${text.length - maxChars} of ${text.length} characters left out]`;
}

/** The bounded text plus any binary parts of an MCP tool result (see `McpToolOutput`). */
export function toolOutputOf(result: unknown, maxChars: number): McpToolOutput {
  const text = limitToolOutput(result, maxChars);
  const binary = binaryPartsOf(result);
  return binary.length === 0 ? text : { text, content: binary };
}

/** What the model is shown of a tool's output: its text, never the bytes. */
export function modelTextOf(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output && typeof output === 'object' && typeof (output as { text?: unknown }).text === 'string')
    return (output as { text: string }).text;
  return JSON.stringify(output) ?? '';
}

function contentOf(result: unknown): Record<string, unknown>[] | undefined {
  if (!result || typeof result !== 'object') return undefined;
  const content = (result as { content?: unknown }).content;
  return Array.isArray(content) ? (content as Record<string, unknown>[]) : undefined;
}

function binaryPartsOf(result: unknown): McpBinaryPart[] {
  if ((result as { isError?: boolean } | undefined)?.isError) return [];
  return (contentOf(result) ?? []).filter(
    (part): part is McpBinaryPart =>
      !!part &&
      (((part.type === 'image' || part.type === 'audio') && typeof part.data === 'string') ||
        (part.type === 'resource' &&
          typeof (part.resource as { blob?: unknown } | undefined)?.blob === 'string')),
  );
}

function toolResultText(result: unknown): string {
  const content = contentOf(result);
  if (content) {
    const { isError } = result as { isError?: boolean };
    // Text parts are what a model can use; other parts are named so the model knows they exist
    // (and that the person is sent them), never inlined.
    const text = content.map(partText).join('\n');
    return isError ? `Tool error: ${text}` : text;
  }
  return typeof result === 'string' ? result : (JSON.stringify(result) ?? '');
}

/** One content part as the model reads it. */
function partText(part: Record<string, unknown>): string {
  if (part.type === 'text' && typeof part.text === 'string') return part.text;
  const resource = part.resource as { text?: unknown; blob?: unknown; mimeType?: unknown } | undefined;
  if (part.type === 'resource' && typeof resource?.text === 'string') return resource.text;
  const sent = part.type === 'image' || part.type === 'audio' || (part.type === 'resource' && resource?.blob);
  const mimeType = part.mimeType ?? resource?.mimeType;
  const described = `${String(part.type ?? 'part')}${typeof mimeType === 'string' ? ` ${mimeType}` : ''}`;
  return sent ? `[${described}: sent to the person as a file]` : `[${described}]`;
}
