import { createHash } from 'node:crypto';

/**
 * Normalises text for exact-duplicate detection: Unicode NFKC, lower case, whitespace
 * collapsed, surrounding punctuation dropped. "Likes tea." and "likes  tea" are one memory.
 */
export function normaliseContent(content: string): string {
  return content
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '');
}

/** sha-256 (hex) of the normalised content. */
export function contentHash(content: string): string {
  return createHash('sha256').update(normaliseContent(content)).digest('hex');
}
