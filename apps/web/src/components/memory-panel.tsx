import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { CATEGORY_LABELS, provenanceOf } from '../memory-provenance.ts';
import {
  deleteMemory,
  editMemory,
  exportMemories,
  listMemories,
  type MemoryView,
  type PersonMemoryOptions,
} from '../person-memory.ts';

export interface MemoryPanelProps {
  api: PersonMemoryOptions;
  onClose: () => void;
}

/** What Nexus knows about the person using this browser: search, edit or delete one, export all. */
export function MemoryPanel({ api, onClose }: MemoryPanelProps) {
  const [memories, setMemories] = useState<MemoryView[]>();
  const [query, setQuery] = useState('');
  const [problem, setProblem] = useState<string>();
  const [editing, setEditing] = useState<{ id: string; draft: string; category: MemoryView['category'] }>();
  const [busy, setBusy] = useState(false);

  // Only the newest load may fill the list: an older search answered late (the reload after a
  // save, say) would otherwise replace the list the person asked for since.
  const latestLoad = useRef(0);
  const load = useCallback(
    async (search: string) => {
      latestLoad.current += 1;
      const thisLoad = latestLoad.current;
      try {
        const found = await listMemories(api, search);
        if (thisLoad !== latestLoad.current) return;
        setMemories(found);
        setProblem(undefined);
      } catch (error) {
        if (thisLoad === latestLoad.current) setProblem((error as Error).message);
      }
    },
    [api],
  );

  useEffect(() => {
    void load('');
  }, [load]);

  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await work();
      setProblem(undefined);
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusy(false);
      await load(query);
    }
  };

  const download = () =>
    act(async () => {
      const text = await exportMemories(api);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
      link.download = 'nexus-memories.jsonl';
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    });

  return (
    <section class="pairing-panel memory-panel" aria-label="Memory" data-testid="memory-panel">
      <header class="pairing-panel-header">
        <h2>Memory</h2>
        <button
          type="button"
          class="secondary"
          data-testid="memory-export"
          disabled={busy}
          onClick={download}
        >
          Export
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </header>
      <form
        class="memory-search"
        onSubmit={(event) => {
          event.preventDefault();
          void load(query);
        }}
      >
        <input
          type="search"
          data-testid="memory-search"
          placeholder="Search what I remember"
          aria-label="Search what I remember"
          value={query}
          onInput={(event) => setQuery((event.target as HTMLInputElement).value)}
        />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {problem !== undefined && (
        <p class="pairing-problem" role="alert" data-testid="memory-problem">
          {problem}
        </p>
      )}
      {memories === undefined ? (
        <p class="pairing-empty">Loading…</p>
      ) : memories.length === 0 ? (
        <p class="pairing-empty" data-testid="memory-empty">
          {query.trim() ? 'Nothing I remember matches that.' : "I don't remember anything about you yet."}
        </p>
      ) : (
        <ul class="pairing-list">
          {memories.map((memory) => (
            <li key={memory.id} class="pairing-request" data-testid="memory-item" data-id={memory.id}>
              {editing?.id === memory.id ? (
                <form
                  class="memory-edit"
                  onSubmit={(event) => {
                    event.preventDefault();
                    const { draft, category } = editing;
                    setEditing(undefined);
                    void act(() => editMemory(api, memory.id, { content: draft, category }));
                  }}
                >
                  <textarea
                    data-testid="memory-edit-input"
                    aria-label="Memory text"
                    maxLength={4000}
                    value={editing.draft}
                    onInput={(event) =>
                      setEditing({ ...editing, draft: (event.target as HTMLTextAreaElement).value })
                    }
                  />
                  <select
                    data-testid="memory-edit-category"
                    aria-label="Category"
                    value={editing.category}
                    onChange={(event) =>
                      setEditing({
                        ...editing,
                        category: (event.target as HTMLSelectElement).value as MemoryView['category'],
                      })
                    }
                  >
                    {(Object.keys(CATEGORY_LABELS) as MemoryView['category'][]).map((category) => (
                      <option key={category} value={category}>
                        {CATEGORY_LABELS[category]}
                      </option>
                    ))}
                  </select>
                  <button type="submit" data-testid="memory-save" disabled={busy || !editing.draft.trim()}>
                    Save
                  </button>
                  <button type="button" class="secondary" onClick={() => setEditing(undefined)}>
                    Cancel
                  </button>
                </form>
              ) : (
                <>
                  <div class="pairing-who">
                    <span data-testid="memory-content">{memory.content}</span>
                    <span class="pairing-meta">
                      <span class="memory-category" data-testid="memory-category">
                        {CATEGORY_LABELS[memory.category]}
                      </span>{' '}
                      <span data-testid="memory-provenance">{provenanceOf(memory, Date.now())}</span>
                    </span>
                  </div>
                  <div class="pairing-actions">
                    <button
                      type="button"
                      class="secondary"
                      data-testid="memory-edit"
                      disabled={busy}
                      onClick={() =>
                        setEditing({ id: memory.id, draft: memory.content, category: memory.category })
                      }
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      data-testid="memory-delete"
                      disabled={busy}
                      onClick={() => void act(() => deleteMemory(api, memory.id))}
                    >
                      Delete
                    </button>
                  </div>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
