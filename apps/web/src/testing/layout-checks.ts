import type { Page } from 'playwright-core';

/**
 * Layout facts read from the page, for the Chromium layout tests: what a person would see as
 * broken, measured (a control word split over two lines, a panel cut off, a target too small).
 */
export async function wrappedSingleWordControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const control of document.querySelectorAll<HTMLElement>('button, [role=button], summary, label')) {
      const text = control.textContent?.trim() ?? '';
      if (text === '' || /\s/.test(text) || control.getClientRects().length === 0) continue;
      const range = document.createRange();
      range.selectNodeContents(control);
      const lines = new Set(
        [...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)),
      );
      if (lines.size > 1) found.push(`${text} (${lines.size} lines)`);
    }
    return found;
  });
}

/** Panels (or their content) that extend past the viewport or past a container that clips them. */
export async function clippedPanels(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const panel of document.querySelectorAll<HTMLElement>(
      '[data-testid=panel-sheet], [data-testid=panel-sheet] > section',
    )) {
      const rect = panel.getBoundingClientRect();
      const name = panel.dataset.testid ?? panel.className;
      if (rect.top < -1 || rect.left < -1 || rect.bottom > innerHeight + 1 || rect.right > innerWidth + 1)
        found.push(`${name} outside the viewport`);
      // A container that hides overflow and cannot scroll to it cuts the panel off.
      for (let parent = panel.parentElement; parent; parent = parent.parentElement) {
        const style = getComputedStyle(parent);
        if (style.overflowY !== 'hidden' && style.overflowX !== 'hidden') continue;
        const box = parent.getBoundingClientRect();
        if (rect.bottom > box.bottom + 1 || rect.top < box.top - 1)
          found.push(`${name} clipped by ${parent.className}`);
      }
      const style = getComputedStyle(panel);
      if (
        panel.scrollHeight > panel.clientHeight + 1 &&
        style.overflowY !== 'auto' &&
        style.overflowY !== 'scroll'
      )
        found.push(`${name} hides content it cannot scroll to`);
    }
    return found;
  });
}

/** Visible controls smaller than 44×44 CSS pixels (links inside running text are exempt). */
export async function smallTapTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const controls = document.querySelectorAll<HTMLElement>(
      'button, input:not([type=hidden]):not([type=checkbox]), select, textarea, a[href]',
    );
    for (const control of controls) {
      if (control.closest('.markdown p, .markdown li, .markdown td, .markdown th, .markdown blockquote'))
        continue;
      const rect = control.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0 || getComputedStyle(control).visibility === 'hidden')
        continue;
      if (control.classList.contains('visually-hidden')) continue;
      if (rect.width < 43.5 || rect.height < 43.5)
        found.push(
          `${control.tagName.toLowerCase()} "${control.textContent?.trim() || control.getAttribute('aria-label')}" ${Math.round(rect.width)}×${Math.round(rect.height)}`,
        );
    }
    return found;
  });
}
