import { useState } from 'preact/hooks';
import type { ConversationSummary } from '../conversation-index.ts';

export interface ConversationEntryProps {
  summary: ConversationSummary;
  current: boolean;
  when: string;
  onSelect: () => void;
  onRename: (title: string) => boolean;
  onDelete: () => Promise<void>;
}

/**
 * One conversation in the list, with Rename and Delete behind its ⋯ button; deleting asks once
 * more, since the gateway forgets it too.
 */
export function ConversationEntry({
  summary,
  current,
  when,
  onSelect,
  onRename,
  onDelete,
}: ConversationEntryProps) {
  const [mode, setMode] = useState<'view' | 'rename' | 'confirm' | 'deleting'>('view');
  const [draft, setDraft] = useState(summary.title);
  // Rename and Delete wait behind ⋯, so the list shows titles, not a column of links.
  const [menuOpen, setMenuOpen] = useState(false);
  if (mode === 'rename') {
    return (
      <li class="conversation-item" data-testid="conversation-item">
        <form
          class="conversation-rename"
          onSubmit={(event) => {
            event.preventDefault();
            if (onRename(draft)) setMode('view');
          }}
        >
          <input
            data-testid="conversation-rename-input"
            aria-label="Conversation name"
            maxLength={80}
            value={draft}
            // biome-ignore lint/a11y/noAutofocus: the person just asked to rename; typing starts here.
            autoFocus
            onInput={(event) => setDraft(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                // Closes the rename, not the whole list.
                event.preventDefault();
                setMode('view');
              }
            }}
          />
          <button type="submit" data-testid="conversation-rename-save" disabled={draft.trim() === ''}>
            Save
          </button>
        </form>
      </li>
    );
  }
  return (
    <li
      class={`conversation-item${current ? ' conversation-current' : ''}`}
      data-testid="conversation-item"
      data-id={summary.conversationId}
    >
      <span class="conversation-row">
        <button
          type="button"
          class="conversation-open"
          aria-current={current ? 'page' : undefined}
          onClick={onSelect}
        >
          <span class="conversation-title">{summary.title}</span>
          <span class="conversation-date">{when}</span>
        </button>
        {mode === 'view' && (
          <button
            type="button"
            class="conversation-more"
            data-testid="conversation-more"
            aria-label={`More for “${summary.title}”`}
            aria-expanded={menuOpen}
            onClick={() => setMenuOpen(!menuOpen)}
          >
            <span aria-hidden="true">⋯</span>
          </button>
        )}
      </span>
      {mode === 'view' ? (
        menuOpen && (
          <span class="conversation-actions conversation-menu">
            <button
              type="button"
              class="link-button"
              data-testid="conversation-rename"
              aria-label={`Rename “${summary.title}”`}
              onClick={() => {
                setMenuOpen(false);
                setDraft(summary.title);
                setMode('rename');
              }}
            >
              Rename
            </button>
            <button
              type="button"
              class="link-button"
              data-testid="conversation-delete"
              aria-label={`Delete “${summary.title}”`}
              onClick={() => {
                setMenuOpen(false);
                setMode('confirm');
              }}
            >
              Delete
            </button>
          </span>
        )
      ) : (
        <span class="conversation-actions">
          <button
            type="button"
            class="danger"
            data-testid="conversation-delete-confirm"
            disabled={mode === 'deleting'}
            onClick={() => {
              setMode('deleting');
              onDelete().finally(() => setMode('view'));
            }}
          >
            Delete on every device
          </button>
          <button type="button" class="secondary" onClick={() => setMode('view')}>
            Keep
          </button>
        </span>
      )}
    </li>
  );
}
