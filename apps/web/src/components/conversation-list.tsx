import type { Ref } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ConversationSummary } from '../conversation-index.ts';
import { relativeTime } from '../relative-time.ts';
import { ConversationEntry } from './conversation-entry.tsx';

/** Wide screens show the list beside the chat; narrower ones open it as a sheet over it. */
export const SIDE_BY_SIDE = '(min-width: 60rem)';

export interface ConversationListProps {
  conversations: readonly ConversationSummary[];
  currentId: string;
  /** The conversations matching a search (title or any message), from storage. */
  search: (query: string) => ConversationSummary[];
  onSelect: (conversationId: string) => void;
  onNew: () => void;
  onRename: (conversationId: string, title: string) => boolean;
  onDelete: (conversationId: string) => Promise<void>;
  onClose: () => void;
  searchRef: Ref<HTMLInputElement>;
  now: number;
}

/** The person's conversations (kept on the gateway, cached here): search, switch, rename, delete. */
export function ConversationList(props: ConversationListProps) {
  const { conversations, currentId, now } = props;
  const [query, setQuery] = useState('');
  const [problem, setProblem] = useState<string>();
  const { onClose } = props;
  useEffect(() => {
    const onEscapeKey = (event: KeyboardEvent) => {
      // Escape closes the sheet on a narrow screen; beside the chat, the list stays.
      if (event.key === 'Escape' && !event.defaultPrevented && !window.matchMedia?.(SIDE_BY_SIDE).matches)
        onClose();
    };
    document.addEventListener('keydown', onEscapeKey);
    return () => document.removeEventListener('keydown', onEscapeKey);
  }, [onClose]);
  const shown = useMemo(
    () => (query.trim() === '' ? conversations : props.search(query)),
    [conversations, query, props.search],
  );
  return (
    <nav class="conversation-list" aria-label="Conversations" data-testid="conversation-list">
      <div class="conversation-list-header">
        <h2>Conversations</h2>
        <button type="button" class="secondary conversation-close" onClick={props.onClose}>
          Close
        </button>
      </div>
      <button
        type="button"
        class="new-conversation"
        data-testid="list-new-conversation"
        onClick={props.onNew}
      >
        New conversation
      </button>
      <input
        ref={props.searchRef}
        type="search"
        class="conversation-search"
        data-testid="conversation-search"
        placeholder="Search conversations"
        aria-label="Search conversations"
        aria-keyshortcuts="Control+K Meta+K"
        value={query}
        onInput={(event) => setQuery(event.currentTarget.value)}
      />
      {problem !== undefined && (
        <p class="pairing-problem" role="alert">
          {problem}
        </p>
      )}
      {shown.length === 0 ? (
        <p class="pairing-empty" data-testid="conversation-empty">
          {query.trim() === '' ? 'Your conversations will be listed here.' : 'No conversation matches that.'}
        </p>
      ) : (
        <ul class="conversation-items">
          {shown.map((summary) => (
            <ConversationEntry
              key={summary.conversationId}
              summary={summary}
              current={summary.conversationId === currentId}
              when={relativeTime(summary.updatedAt, now)}
              onSelect={() => props.onSelect(summary.conversationId)}
              onRename={(title) => props.onRename(summary.conversationId, title)}
              onDelete={() =>
                props.onDelete(summary.conversationId).then(
                  () => setProblem(undefined),
                  (error: Error) => setProblem(`Not deleted: ${error.message}`),
                )
              }
            />
          ))}
        </ul>
      )}
      <p class="shortcut-hint">
        <kbd>Ctrl</kbd>+<kbd>Shift</kbd>+<kbd>O</kbd> new · <kbd>Ctrl</kbd>+<kbd>K</kbd> search ·{' '}
        <kbd>Alt</kbd>+<kbd>↑</kbd>/<kbd>↓</kbd> switch
      </p>
    </nav>
  );
}
