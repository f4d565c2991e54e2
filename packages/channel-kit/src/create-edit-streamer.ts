import { splitMessage } from './split-message.ts';

export interface EditStreamerOptions {
  /** Platform limit per message, measured on the rendered text. */
  maxLength: number;
  /** Least time between two delivery rounds (edits are rate limited per chat). */
  minIntervalMs: number;
  /** Sends chunk `index` as a new message and returns its platform id. */
  send(text: string, index: number): Promise<string>;
  edit(messageId: string, text: string): Promise<void>;
  /** Deletes a message left over when the final text needs fewer messages than were streamed. */
  remove?(messageId: string): Promise<void>;
  /** Markdown → platform text (e.g. renderTelegramHtml). Default: unchanged. */
  render?: (markdown: string) => string;
  now?: () => number;
  /** Failures while streaming; they are retried with the next round. Failures of `finish` reject instead. */
  onError?: (error: unknown) => void;
}

export interface EditStreamer {
  /** The full reply text so far (not a delta). Cheap to call on every delta. */
  push(text: string): void;
  /** Delivers the final text and resolves with the ids of the messages that hold it, in order. */
  finish(finalText: string): Promise<string[]>;
}

interface Delivered {
  id: string;
  text: string;
}

/**
 * Streams a reply by editing messages in place (Telegram, Discord): the first text is sent at
 * once, later text is coalesced into at most one edit round per `minIntervalMs`, and text past
 * `maxLength` continues in new messages split with `splitMessage`, so fences stay balanced.
 */
export function createEditStreamer(options: EditStreamerOptions): EditStreamer {
  const now = options.now ?? Date.now;
  const render = options.render ?? ((markdown: string) => markdown);
  const measure = options.render ? (chunk: string) => render(chunk).length : undefined;
  const delivered: Delivered[] = [];
  let latest = '';
  let lastRoundText = '';
  let lastRoundAt = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let busy: Promise<void> | undefined;
  let finished: Promise<string[]> | undefined;

  const deliver = async (markdown: string): Promise<number> => {
    const chunks = splitMessage(markdown, { maxLength: options.maxLength, measure }).map(render);
    for (const [index, text] of chunks.entries()) {
      const existing = delivered[index];
      if (existing) {
        if (existing.text === text) continue;
        await options.edit(existing.id, text);
        existing.text = text;
      } else {
        const id = await options.send(text, index);
        delivered.push({ id, text });
      }
    }
    return chunks.length;
  };

  const round = (): void => {
    timer = undefined;
    const text = latest;
    lastRoundText = text;
    lastRoundAt = now();
    busy = deliver(text)
      .then(
        () => undefined,
        (error: unknown) => {
          // Not retried until new text arrives, so a failing platform is not hammered.
          try {
            options.onError?.(error);
          } catch {
            // A throwing error handler must not break the stream.
          }
        },
      )
      .finally(() => {
        busy = undefined;
        schedule();
      });
  };

  const schedule = (): void => {
    if (finished || busy || timer || latest.trim() === '' || latest === lastRoundText) return;
    const delay = Math.max(0, lastRoundAt + options.minIntervalMs - now());
    if (delay === 0) round();
    else timer = setTimeout(round, delay);
  };

  return {
    push(text) {
      if (finished) return;
      latest = text;
      schedule();
    },
    finish(finalText) {
      finished ??= (async () => {
        if (timer) clearTimeout(timer);
        timer = undefined;
        await busy;
        latest = finalText;
        const count = await deliver(finalText);
        for (const extra of delivered.splice(count)) await options.remove?.(extra.id);
        return delivered.map((message) => message.id);
      })();
      return finished;
    },
  };
}
