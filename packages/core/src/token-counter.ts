/** Counts tokens of prompt text; used to cut conversation history to a budget. */
export interface TokenCounter {
  count(text: string): number;
  /** False for the characters-per-token estimate. */
  readonly exact: boolean;
}

/** The fallback when no tokenizer can be loaded: about four characters per token. */
export const approximateTokenCounter: TokenCounter = {
  count: (text) => Math.ceil(text.length / 4),
  exact: false,
};

export type TokenizerEncoding = 'o200k_base' | 'cl100k_base';

const loaded = new Map<TokenizerEncoding, Promise<TokenCounter>>();

/**
 * Loads a js-tiktoken encoding once per process and shares it. Building the tables is the
 * expensive part (o200k_base: about 0.7 s of CPU and 70 MB of heap; cl100k_base about half), so
 * callers load it at startup and pass the same counter to everything that counts tokens.
 * When the tokenizer cannot be loaded this resolves to the 4-characters-per-token estimate.
 */
export function loadTokenCounter(options: { encoding?: TokenizerEncoding } = {}): Promise<TokenCounter> {
  const encoding = options.encoding ?? 'o200k_base';
  let pending = loaded.get(encoding);
  if (!pending) {
    pending = buildTiktokenCounter(encoding).catch(() => approximateTokenCounter);
    loaded.set(encoding, pending);
  }
  return pending;
}

async function buildTiktokenCounter(encoding: TokenizerEncoding): Promise<TokenCounter> {
  const { Tiktoken } = await import('js-tiktoken/lite');
  const ranks =
    encoding === 'o200k_base'
      ? (await import('js-tiktoken/ranks/o200k_base')).default
      : (await import('js-tiktoken/ranks/cl100k_base')).default;
  const tokenizer = new Tiktoken(ranks);
  return {
    // Special-token text in user input is counted as plain text, never rejected.
    count: (text) => (text.length === 0 ? 0 : tokenizer.encode(text, [], []).length),
    exact: true,
  };
}
