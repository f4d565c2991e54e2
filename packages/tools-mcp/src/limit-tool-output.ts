/** The text of an MCP tool result, cut to `maxChars` with a note the model can read. */
export function limitToolOutput(result: unknown, maxChars: number): string {
  const text = toolResultText(result);
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[output truncated: ${text.length - maxChars} of ${text.length} characters left out]`;
}

function toolResultText(result: unknown): string {
  if (result && typeof result === 'object' && Array.isArray((result as { content?: unknown }).content)) {
    const { content, isError } = result as {
      content: { type?: string; text?: unknown }[];
      isError?: boolean;
    };
    // Text parts are what a model can use; other parts (images, resources) are named, not inlined.
    const text = content
      .map((part) =>
        part.type === 'text' && typeof part.text === 'string' ? part.text : `[${part.type ?? 'part'}]`,
      )
      .join('\n');
    return isError ? `Tool error: ${text}` : text;
  }
  return typeof result === 'string' ? result : (JSON.stringify(result) ?? '');
}
