import type { KeyValueStore } from './storage.ts';

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];
const key = 'nexus.theme';

/** The person's colour scheme choice; `system` (the default) follows the device. */
export function readTheme(store: KeyValueStore): ThemeChoice {
  try {
    const value = store.getItem(key);
    return THEME_CHOICES.includes(value as ThemeChoice) ? (value as ThemeChoice) : 'system';
  } catch {
    return 'system';
  }
}

/** Applies the choice to the page (styles.css reads `data-theme`) and remembers it. */
export function applyTheme(store: KeyValueStore, choice: ThemeChoice, root: HTMLElement): void {
  try {
    if (choice === 'system') store.removeItem(key);
    else store.setItem(key, choice);
  } catch {
    // Storage blocked: the choice holds until the page is reloaded.
  }
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}
