import type { Page } from 'playwright-core';

const section = (index: number) =>
  [
    `## Part ${index}`,
    '',
    `Paragraph ${index} with **bold**, _emphasis_, \`inline code\`, a [link](https://example.com/${index}) and ~~struck~~ words that run on for a while.`,
    '',
    '- first point',
    '- second point with `code`',
    '  - nested point',
    '',
    '| Column | Value |',
    '|---|---:|',
    `| row ${index} | ${index * 3} |`,
    '',
    '```ts',
    `const value${index} = compute(${index}); // comment`,
    '```',
    '',
    `> A quote in part ${index}.`,
    '',
  ].join('\n');

/** Markdown of at least `bytes` characters that uses every common construct, ending in a marker. */
export function longReply(bytes: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let index = 1; length < bytes; index++) {
    const part = section(index);
    parts.push(part);
    length += part.length;
  }
  return `${parts.join('\n')}\nThe end of the long reply.`;
}

/** The long reply as a model streams it, in pieces of about 1 KB. */
export function longReplyChunks(bytes: number): string[] {
  const text = longReply(bytes);
  const chunks: string[] = [];
  for (let start = 0; start < text.length; start += 1000) chunks.push(text.slice(start, start + 1000));
  return chunks;
}

/** What drawing the long reply did, seen from the page (wall-clock times, so skewed by load). */
export interface LongReplyDrawing {
  /** From the click until the frame after the reply's last paragraph was in the page. */
  visibleMs: number;
  /** From the click until every block was drawn (no `aria-busy`), and a frame after. */
  completeMs: number;
  /** Elements in the reply when its end was first shown, and when it was whole. */
  elementsWhenVisible: number;
  elements: number;
  /** The most elements one commit added to the reply (one task of work). */
  largestStep: number;
  steps: number;
  /** Main-thread tasks over 50 ms meanwhile (Long Tasks API), in ms. */
  longTasks: number[];
  headings: number;
}

/**
 * Opens the conversation holding the long reply (from a new, empty one) and watches it being
 * drawn. Marks `long-reply-open`, `long-reply-visible` and `long-reply-complete` in the page's
 * timeline (for a trace to cut at). Returns to a new conversation afterwards.
 */
export async function openLongReply(page: Page): Promise<LongReplyDrawing> {
  await page.getByTestId('new-conversation-button').click();
  await page.locator('[data-role=assistant]').waitFor({ state: 'detached' });
  if ((await page.getByTestId('conversation-list').count()) === 0)
    await page.getByTestId('conversations-button').click();
  const item = page.getByTestId('conversation-item').first().locator('button').first();
  await item.evaluate((button) => button.setAttribute('data-measure', 'open'));
  return page.evaluate(
    () =>
      new Promise<LongReplyDrawing>((resolve) => {
        const afterFrame = (then: () => void) => requestAnimationFrame(() => setTimeout(then, 0));
        const longTasks: number[] = [];
        const tasks = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) longTasks.push(Math.round(entry.duration));
        });
        tasks.observe({ type: 'longtask' });
        const reply = () => document.querySelector('[data-role=assistant] .markdown');
        const count = (node: Node) =>
          node instanceof Element && node.closest('.markdown') ? node.querySelectorAll('*').length + 1 : 0;
        const endShown = () =>
          [...(reply()?.querySelectorAll('p') ?? [])].some((paragraph) =>
            paragraph.textContent?.includes('The end of the long reply.'),
          );
        let visible = false;
        let largestStep = 0;
        let steps = 0;
        const observer = new MutationObserver((records) => {
          let added = 0;
          for (const record of records) for (const node of record.addedNodes) added += count(node);
          if (added > 0) steps += 1;
          largestStep = Math.max(largestStep, added);
          if (!visible && endShown()) {
            visible = true;
            const elementsWhenVisible = reply()!.querySelectorAll('*').length;
            afterFrame(() => {
              performance.mark('long-reply-visible');
              result.visibleMs = performance.now() - start;
              result.elementsWhenVisible = elementsWhenVisible;
            });
          }
          if (visible && !reply()!.hasAttribute('aria-busy')) {
            observer.disconnect();
            afterFrame(() => {
              performance.mark('long-reply-complete');
              tasks.disconnect();
              resolve({
                ...result,
                completeMs: performance.now() - start,
                elements: reply()!.querySelectorAll('*').length,
                largestStep,
                steps,
                longTasks,
                headings: reply()!.querySelectorAll('h4').length,
              });
            });
          }
        });
        const result = { visibleMs: 0, elementsWhenVisible: 0 };
        observer.observe(document.body, { childList: true, subtree: true, attributes: true });
        const button = document.querySelector<HTMLButtonElement>('[data-measure=open]')!;
        performance.mark('long-reply-open');
        const start = performance.now();
        button.click();
      }),
  );
}
