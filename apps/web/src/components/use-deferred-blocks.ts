import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Token } from '../markdown/lex-markdown.ts';

/**
 * A reply that arrives whole (opening a conversation, a reply that was not streamed here) and is
 * longer than this is drawn in steps: building every element of 100 KB of Markdown at once is a
 * task of several hundred milliseconds, during which the page cannot answer a click or a key.
 */
const stepsAbove = 16_384;
/** The first step draws the reply's end (what the reader sees, the list is scrolled to it). */
const firstStepChars = 6_144;
/** Each later step aims at this much script time, so a frame can follow each one. */
const stepBudgetMs = 8;
const minStepChars = 1_024;
const maxStepChars = 6_144;

/**
 * How many of `tokens`' leading blocks are not drawn yet. After a lex of the whole text (a count
 * in `relexes`) a long reply's end is drawn at once and the blocks before it are drawn upwards
 * in later tasks, each sized to about `stepBudgetMs` of work by how long the previous one took.
 * Blocks the stream appends are drawn at once; the blocks before are the same tokens throughout.
 */
export function useDeferredBlocks(tokens: readonly Token[], relexes: number): number {
  const state = useRef({ relexes: -1, hidden: 0, stepChars: 4_096, stepStart: 0 });
  const [, redraw] = useState(0);
  if (state.current.relexes !== relexes)
    state.current = { ...state.current, relexes, hidden: firstHidden(tokens), stepStart: 0 };
  const { hidden } = state.current;

  // After a step's elements are committed: how long its render took sizes the next step.
  useLayoutEffect(() => {
    const step = state.current;
    if (step.stepStart === 0) return;
    const elapsed = Math.max(1, performance.now() - step.stepStart);
    step.stepChars = Math.min(
      maxStepChars,
      Math.max(minStepChars, (step.stepChars * stepBudgetMs) / elapsed),
    );
    step.stepStart = 0;
  });

  useEffect(() => {
    if (hidden === 0) return;
    return inNextTask(() => {
      const step = state.current;
      if (step.relexes !== relexes) return;
      step.hidden = earlierStart(tokens, step.hidden, step.stepChars);
      step.stepStart = performance.now();
      redraw((count) => count + 1);
    });
  }, [hidden, relexes]);
  return hidden;
}

/** Where the first step starts: 0 (all at once) for a short reply, else its last few KB. */
function firstHidden(tokens: readonly Token[]): number {
  let total = 0;
  for (const token of tokens) total += token.raw.length;
  return total <= stepsAbove ? 0 : earlierStart(tokens, tokens.length, firstStepChars);
}

/** The index `chars` characters (whole blocks, at least one) before the block at `end`. */
function earlierStart(tokens: readonly Token[], end: number, chars: number): number {
  let start = end;
  let taken = 0;
  while (start > 0 && (taken < chars || start === end)) {
    start -= 1;
    taken += tokens[start]!.raw.length;
  }
  return start;
}

interface PostTask {
  postTask: (callback: () => void, options: { priority: string; signal: AbortSignal }) => Promise<unknown>;
}

/**
 * Runs `callback` in a task of its own (the browser may draw a frame and handle input before it);
 * returns a function that cancels it. Several replies drawing at once each get their own task.
 */
function inNextTask(callback: () => void): () => void {
  const scheduler = (globalThis as { scheduler?: PostTask }).scheduler;
  if (scheduler?.postTask) {
    const abort = new AbortController();
    scheduler.postTask(callback, { priority: 'user-visible', signal: abort.signal }).catch(() => {
      // Cancelled: the view went away or lexed its text again.
    });
    return () => abort.abort();
  }
  const timer = setTimeout(callback, 0);
  return () => clearTimeout(timer);
}
