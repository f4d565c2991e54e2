import { type Fence, type FenceLine, parseFenceLines } from './fence-lines.ts';

export interface SplitMessageOptions {
  /** Platform limit per message, in the unit `measure` counts. */
  maxLength: number;
  /** Length as the platform counts it. Default: UTF-16 code units (what Telegram and Discord count). */
  measure?: ((chunk: string) => number) | undefined;
}

// Cut classes in order of preference.
const PARAGRAPH = 0;
const LINE = 1;
const SENTENCE = 2;
const WORD = 3;
const ANY = 4;
/** Opening lines up to this length are repeated verbatim; longer ones are not a language tag. */
const MAX_REOPENER_LENGTH = 64;
/** Bounds the work when `measure` is not monotonic (e.g. it measures rendered HTML). */
const TRIES_PER_CLASS = 16;
const SECANT_STEPS = 6;
const FENCE_AHEAD = /[ \t]*(?:`{3}|~{3})/y;
const FENCE_START = /[ \t]*(`{3,}|~{3,})/y;
const SENTENCE_END = /[.!?…。！？][)\]"'”’*_]*$/;

/**
 * Splits a Markdown reply into messages that each fit the platform limit. A fenced code block
 * that has to be cut is closed at the end of one chunk and reopened with the same info string at
 * the start of the next, so every chunk renders on its own. Cuts prefer paragraph breaks, then
 * line breaks, then sentence ends, then spaces, and never split a surrogate pair. An unclosed
 * fence at the end of the text is closed. Empty or blank text yields no chunks.
 */
export function splitMessage(text: string, options: SplitMessageOptions): string[] {
  const { maxLength } = options;
  if (!(maxLength >= 1)) throw new RangeError(`splitMessage: maxLength must be >= 1, got ${maxLength}`);
  const normalised = text.replace(/\r\n?/g, '\n');
  const splitter = new Splitter(normalised, maxLength, options.measure);
  return splitter.split();
}

class Splitter {
  readonly #text: string;
  readonly #max: number;
  readonly #measure: (chunk: string) => number;
  readonly #lines: FenceLine[];
  /** How close to the exact limit the search must get; looser for custom (costly) measures. */
  readonly #tolerance: number;

  constructor(text: string, max: number, measure: ((chunk: string) => number) | undefined) {
    this.#text = text;
    this.#max = max;
    this.#measure = measure ?? ((chunk) => chunk.length);
    this.#tolerance = measure ? Math.max(1, Math.floor(max / 256)) : 1;
    this.#lines = parseFenceLines(text);
  }

  split(): string[] {
    const chunks: string[] = [];
    let start = this.#skipBlank(0);
    while (start < this.#text.length) {
      const end = this.#findCut(start);
      const body = this.#text.slice(start, end.position);
      if (body.trim() !== '') chunks.push(end.raw ? body : this.#build(start, end.position));
      start = this.#skipBlank(end.position);
    }
    return chunks;
  }

  #fits(start: number, end: number): boolean {
    return this.#measure(this.#build(start, end)) <= this.#max;
  }

  /** The chunk for text[start, end), with the fence open at `start` reopened and the one open at `end` closed. */
  #build(start: number, end: number): string {
    const opened = this.#fenceAt(start);
    const closing = this.#fenceAt(end);
    const body = (opened ? `${this.#reopener(opened)}\n` : '') + this.#text.slice(start, end);
    if (!closing) return body.trimEnd();
    return `${body}${body.endsWith('\n') ? '' : '\n'}${closing.marker}`;
  }

  /** The opening line repeated at the top of a continuation chunk; a runaway info string is dropped. */
  #reopener(fence: Fence): string {
    return fence.openerLine.length <= Math.max(MAX_REOPENER_LENGTH, this.#max / 4)
      ? fence.openerLine
      : fence.marker;
  }

  #findCut(start: number): { position: number; raw: boolean } {
    const hard = this.#hardLimit(start, (position) => this.#snapDown(position));
    if (hard <= start) {
      // Only a fence line longer than the limit gets here: cut it anywhere, still wrapped if possible.
      const loose = this.#hardLimit(start, (position) => this.#snapSurrogate(position));
      return loose > start ? { position: loose, raw: false } : { position: this.#rawLimit(start), raw: true };
    }
    if (hard >= this.#text.length) return { position: hard, raw: false };
    // Only positions after whitespace can be preferred cuts; any other position is no better
    // than `hard`, the largest one that fits.
    const candidates: number[][] = Array.from({ length: ANY }, () => []);
    const text = this.#text;
    for (let position = hard; position > start; position -= 1) {
      const before = text.charCodeAt(position - 1);
      if (before !== 10 && before !== 32 && before !== 9) continue;
      const kind = this.#classify(position);
      const list = kind === undefined ? undefined : candidates[kind];
      if (list && list.length < TRIES_PER_CLASS) list.push(position);
    }
    for (const list of candidates) {
      for (const position of list) {
        if (this.#fits(start, position)) return { position, raw: false };
      }
    }
    return { position: hard, raw: false };
  }

  /**
   * Largest end (after `snap`) such that the built chunk fits; `start` when none does. Positions
   * that snap back to `start` count as fitting so the search stays monotonic across them.
   */
  #hardLimit(start: number, snap: (position: number) => number): number {
    const length = this.#text.length;
    const sizeAt = (position: number): number => {
      const snapped = snap(position);
      return snapped <= start ? 0 : this.#measure(this.#build(start, snapped));
    };
    let low = start; // fits
    let high = length + 1; // does not fit
    let guess = Math.min(length, start + Math.max(1, Math.floor(this.#max)));
    // Secant steps first: measured size grows about in proportion to the text taken, so a few
    // measurements land close to the limit even when `measure` renders (and is expensive).
    for (let step = 0; step < SECANT_STEPS && high - low > this.#tolerance; step += 1) {
      const size = sizeAt(guess);
      if (size <= this.#max) {
        low = guess;
        if (guess >= length) break;
      } else {
        high = guess;
      }
      const estimate =
        size > 0 ? start + Math.floor(((guess - start) * this.#max * 0.995) / size) : 2 * guess - start;
      guess = Math.min(length, high - 1, Math.max(low + 1, estimate));
      if (guess <= low) break;
    }
    while (high - low > this.#tolerance && low < length) {
      const middle = low + Math.floor((high - low) / 2);
      if (sizeAt(middle) <= this.#max) low = middle;
      else high = middle;
    }
    return Math.max(snap(low), start);
  }

  /** Last resort when not even one character fits with fence wrapping: cut the raw text. */
  #rawLimit(start: number): number {
    let end = start;
    for (const character of this.#text.slice(start)) {
      const next = end + character.length;
      if (this.#measure(this.#text.slice(start, next)) > this.#max) break;
      end = next;
    }
    if (end === start) {
      throw new RangeError(`splitMessage: maxLength ${this.#max} cannot hold a single character`);
    }
    return end;
  }

  #classify(position: number): number | undefined {
    const text = this.#text;
    if (!this.#allowed(position)) return undefined;
    if (text[position - 1] === '\n') {
      const line = this.#lineAt(position);
      const previous = this.#lineAt(position - 1);
      const fence = this.#fenceAt(position);
      if (!fence && (this.#isBlank(previous) || previous.role === 'close' || line.role === 'open')) {
        return PARAGRAPH;
      }
      // Would leave an empty code block behind or ahead of the cut.
      if ((fence && line.role === 'close') || previous.role === 'open') return ANY;
      return LINE;
    }
    const before = text[position - 1] ?? '';
    const at = text[position] ?? '';
    if ((before === ' ' || before === '\t') && at.trim() !== '') {
      if (this.#fenceAt(position)) return WORD;
      const head = text.slice(Math.max(0, position - 40), position).trimEnd();
      return SENTENCE_END.test(head) ? SENTENCE : WORD;
    }
    return ANY;
  }

  /** The fence that is open for text[0, position), or undefined. Positions inside a fence line are never asked. */
  #fenceAt(position: number): Fence | undefined {
    const line = this.#lineAt(position);
    if (position === line.start)
      return line.role === 'content' || line.role === 'close' ? line.fence : undefined;
    if (line.role === 'content' || line.role === 'open') return line.fence;
    return undefined;
  }

  #allowed(position: number): boolean {
    return this.#snapDown(position) === position;
  }

  /** Moves a position out of a fence line (or one that could turn into one) and off a surrogate pair. */
  #snapDown(position: number): number {
    const line = this.#lineAt(position);
    let current = position;
    if (current > line.start && current < line.end) {
      if (this.#isAtomic(line)) return line.start;
      // A chunk must not begin with a fence-like run taken from the middle of a line.
      for (;;) {
        FENCE_AHEAD.lastIndex = current;
        if (current <= line.start || !FENCE_AHEAD.test(this.#text)) break;
        current -= 1;
      }
    }
    return this.#snapSurrogate(current);
  }

  #snapSurrogate(position: number): number {
    const code = this.#text.charCodeAt(position);
    const previous = this.#text.charCodeAt(position - 1);
    if (code >= 0xdc00 && code <= 0xdfff && previous >= 0xd800 && previous <= 0xdbff) return position - 1;
    return position;
  }

  /** Lines cut only at their start: fence lines, and lines whose prefix could parse as one. */
  #isAtomic(line: FenceLine): boolean {
    if (line.role === 'open' || line.role === 'close') return true;
    FENCE_START.lastIndex = line.start;
    const run = FENCE_START.exec(this.#text)?.[1];
    if (!run) return false;
    if (line.role === 'text') return true;
    const marker = line.fence?.marker ?? '';
    return run[0] === marker[0] && run.length >= marker.length;
  }

  #skipBlank(position: number): number {
    let current = position;
    while (current < this.#text.length && !this.#fenceAt(current)) {
      const line = this.#lineAt(current);
      if (current !== line.start || line.role !== 'text' || !this.#isBlank(line)) break;
      current = line.next;
    }
    return current;
  }

  #isBlank(line: FenceLine): boolean {
    return line.role === 'text' && this.#text.slice(line.start, line.end).trim() === '';
  }

  #lineAt(position: number): FenceLine {
    const lines = this.#lines;
    let low = 0;
    let high = lines.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((lines[middle]?.start ?? 0) <= position) low = middle;
      else high = middle - 1;
    }
    return lines[low] as FenceLine;
  }
}
