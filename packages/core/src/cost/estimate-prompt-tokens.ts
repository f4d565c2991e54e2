/** What a provider bills for one image or file part, roughly: a 1024×1024 image is about 800–1,100. */
const TOKENS_PER_FILE_PART = 1_000;

interface PromptPart {
  type: string;
  text?: string;
}

/**
 * The input tokens of a request when the provider reports none (some OpenAI-compatible servers
 * send no usage): text at about four characters a token, each image or file part at a flat
 * 1,000. Without it the per-message input cap could never bite on such a provider.
 */
export function estimatePromptTokens(prompt: ReadonlyArray<{ content: unknown }>): number {
  let characters = 0;
  let files = 0;
  for (const message of prompt) {
    if (typeof message.content === 'string') {
      characters += message.content.length;
      continue;
    }
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content as PromptPart[]) {
      if (part.type === 'file') files += 1;
      else if (typeof part.text === 'string') characters += part.text.length;
      else characters += JSON.stringify(part).length;
    }
  }
  return Math.ceil(characters / 4) + files * TOKENS_PER_FILE_PART;
}
