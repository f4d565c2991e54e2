import { randomInt } from 'node:crypto';

/** No 0/O, 1/I/L: codes are read aloud and typed from phones. 31 symbols. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export const CODE_LENGTH = 8;

/** An 8-character one-time code from a cryptographic source (about 40 bits). */
export function randomCode(): string {
  let code = '';
  for (let index = 0; index < CODE_LENGTH; index++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** What a person typed, made comparable: case, spaces and dashes do not matter. */
export function normaliseCode(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** Whether the text could be a code at all (so obvious non-codes do not count as wrong guesses). */
export function looksLikeCode(text: string): boolean {
  return /^[A-Z0-9]{6,12}$/.test(normaliseCode(text));
}
