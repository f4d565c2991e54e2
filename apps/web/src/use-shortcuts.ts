import { useEffect } from 'preact/hooks';

export interface Shortcuts {
  newConversation: () => void;
  search: () => void;
  /** -1: the conversation above in the list (newer), +1: below. */
  switchBy: (step: -1 | 1) => void;
}

/**
 * Ctrl/⌘+Shift+O new conversation, Ctrl/⌘+K search, Alt+↑/↓ previous or next conversation: the
 * keys ChatGPT-style clients use, so people moving over keep their habits.
 */
export function useShortcuts(shortcuts: Shortcuts): void {
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      const command = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (command && event.shiftKey && key === 'o') shortcuts.newConversation();
      else if (command && !event.shiftKey && key === 'k') shortcuts.search();
      else if (event.altKey && !command && (key === 'arrowup' || key === 'arrowdown'))
        shortcuts.switchBy(key === 'arrowup' ? -1 : 1);
      else return;
      event.preventDefault();
    };
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, [shortcuts]);
}
