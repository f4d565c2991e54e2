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

/**
 * Milliseconds from opening the conversation holding the long reply (from a new, empty one) until
 * its last paragraph is in the page and laid out. Returns to a new conversation afterwards.
 */
export async function renderTime(page: Page): Promise<number> {
  await page.getByTestId('new-conversation-button').click();
  await page.locator('[data-role=assistant]').waitFor({ state: 'detached' });
  if ((await page.getByTestId('conversation-list').count()) === 0)
    await page.getByTestId('conversations-button').click();
  const item = page.getByTestId('conversation-item').first().locator('button').first();
  await item.evaluate((button) => button.setAttribute('data-measure', 'open'));
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const button = document.querySelector<HTMLButtonElement>('[data-measure=open]')!;
        const done = () =>
          [...document.querySelectorAll('.markdown p')].some((paragraph) =>
            paragraph.textContent?.includes('The end of the long reply.'),
          );
        const observer = new MutationObserver(() => {
          if (!done()) return;
          // Reading a layout value makes the browser lay the page out now, inside the measurement.
          void document.body.offsetHeight;
          observer.disconnect();
          resolve(performance.now() - start);
        });
        observer.observe(document.body, { childList: true, subtree: true });
        const start = performance.now();
        button.click();
      }),
  );
}
