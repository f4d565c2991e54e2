const ENCODINGS: Record<string, string> = { '%': '%25', ':': '%3A' };
const DECODINGS: Record<string, string> = { '%25': '%', '%3A': ':' };
/** Marks an id that would otherwise look like an integer, which BullMQ reserves for its own ids. */
const INTEGER_MARK = '%23';

/**
 * Maps any port jobId to one BullMQ accepts (no ':', not an integer) and back, one to one,
 * so ids like `memory.extract:turn-42` or `7` work unchanged for callers.
 */
export function encodeJobId(id: string): string {
  const escaped = id.replace(/[%:]/g, (character) => ENCODINGS[character]!);
  return `${Number.parseInt(escaped, 10)}` === escaped ? `${INTEGER_MARK}${escaped}` : escaped;
}

export function decodeJobId(encoded: string): string {
  const unmarked = encoded.startsWith(INTEGER_MARK) ? encoded.slice(INTEGER_MARK.length) : encoded;
  return unmarked.replace(/%25|%3A/g, (sequence) => DECODINGS[sequence]!);
}
