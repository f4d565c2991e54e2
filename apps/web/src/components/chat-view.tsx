import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ChatSession } from '../chat-session.ts';
import type { PairingRequestsOptions } from '../pairing-requests.ts';
import { type KeyValueStore, memoryKeyValueStore } from '../storage.ts';
import { applyTheme, readTheme, type ThemeChoice } from '../theme.ts';
import { useChatSession } from '../use-chat-session.ts';
import { useShortcuts } from '../use-shortcuts.ts';
import { AppHeader } from './app-header.tsx';
import { ChatPane } from './chat-pane.tsx';
import { ConversationList, SIDE_BY_SIDE } from './conversation-list.tsx';
import type { PanelName } from './header-menu.tsx';
import { PanelSheet } from './panel-sheet.tsx';

export interface ChatViewProps {
  session: ChatSession;
  onUnauthorized: () => void;
  /** Sign out: the session ends on the gateway and the sign-in form comes back. */
  onSignOut?: () => void;
  /** False for a person signed in with an invite link: the owner's panels (Access, Channels) are not theirs. */
  isOwner?: boolean;
  /** The gateway's admin API: access requests from the chat channels and the channels' links. */
  pairingApi?: PairingRequestsOptions;
  /** This browser's web client id: the Memory panel shows what is remembered about its person. */
  clientId?: string;
  /** Where the colour scheme choice is kept (localStorage in the browser). */
  themeStore?: KeyValueStore;
}

const fallbackThemeStore = memoryKeyValueStore();

export function ChatView({
  session,
  onUnauthorized,
  onSignOut,
  isOwner = true,
  pairingApi,
  clientId,
  themeStore,
}: ChatViewProps) {
  const snapshot = useChatSession(session);
  const { conversation, conversations, connection } = snapshot;
  const store = themeStore ?? fallbackThemeStore;
  const [openPanel, setOpenPanel] = useState<PanelName>();
  const [listOpen, setListOpen] = useState(() => window.matchMedia?.(SIDE_BY_SIDE).matches ?? false);
  const [theme, setTheme] = useState<ThemeChoice>(() => readTheme(store));
  const [now, setNow] = useState(Date.now);
  const searchRef = useRef<HTMLInputElement>(null);
  const memoryApi = useMemo(
    () => (pairingApi && clientId ? { ...pairingApi, clientId } : undefined),
    [pairingApi, clientId],
  );
  const panels: PanelName[] = [
    ...(memoryApi ? (['memory'] as const) : []),
    ...(pairingApi && isOwner ? (['access', 'channels'] as const) : []),
  ];
  const current = conversations.find((entry) => entry.conversationId === conversation.conversationId);
  const closeOnPhone = () => {
    if (!window.matchMedia?.(SIDE_BY_SIDE).matches) setListOpen(false);
  };

  useEffect(() => {
    if (connection.phase === 'unauthorized') onUnauthorized();
  }, [connection.phase, onUnauthorized]);
  useEffect(() => applyTheme(store, theme, document.documentElement), [store, theme]);
  // Relative dates in the list ("5 minutes ago") stay true while the page is open.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);

  const closePanel = useCallback(() => setOpenPanel(undefined), []);
  const closeList = useCallback(() => setListOpen(false), []);
  const startNew = useCallback(() => {
    if (session.snapshot.conversation.messages.length > 0) session.newConversation();
    document.querySelector<HTMLTextAreaElement>('[data-testid=message-input]')?.focus();
  }, [session]);
  const shortcuts = useMemo(
    () => ({
      newConversation: startNew,
      search: () => {
        setListOpen(true);
        // The list renders on the next frame when it was closed.
        requestAnimationFrame(() => searchRef.current?.focus());
      },
      switchBy: (step: -1 | 1) => {
        const list = session.snapshot.conversations;
        const index = list.findIndex(
          (entry) => entry.conversationId === session.snapshot.conversation.conversationId,
        );
        const next = list[index === -1 ? (step === 1 ? 0 : -1) : index + step];
        if (next) session.switchConversation(next.conversationId);
      },
    }),
    [session, startNew],
  );
  useShortcuts(shortcuts);

  return (
    <div class={`app-shell${listOpen ? ' list-open' : ''}`}>
      {listOpen && (
        <>
          <div class="sheet-backdrop list-backdrop" aria-hidden="true" onClick={() => setListOpen(false)} />
          <ConversationList
            conversations={conversations}
            currentId={conversation.conversationId}
            search={(query) => session.searchConversations(query)}
            onSelect={(id) => {
              session.switchConversation(id);
              closeOnPhone();
            }}
            onNew={() => {
              startNew();
              closeOnPhone();
            }}
            onRename={(id, title) => session.renameConversation(id, title)}
            onDelete={(id) => session.deleteConversation(id)}
            onClose={closeList}
            searchRef={searchRef}
            now={now}
          />
        </>
      )}
      <div class="chat-column">
        <AppHeader
          title={current?.title ?? 'New conversation'}
          listOpen={listOpen}
          onToggleList={() => setListOpen(!listOpen)}
          onNew={startNew}
          canStartNew={conversation.messages.length > 0}
          panels={panels}
          openPanel={openPanel}
          onPanel={(panel) => setOpenPanel(openPanel === panel ? undefined : panel)}
          theme={theme}
          onTheme={setTheme}
          {...(onSignOut ? { onSignOut } : {})}
        />
        {openPanel !== undefined && (
          <PanelSheet
            panel={openPanel}
            onClose={closePanel}
            {...(pairingApi ? { pairingApi } : {})}
            {...(memoryApi ? { memoryApi } : {})}
          />
        )}
        <ChatPane session={session} snapshot={snapshot} />
      </div>
    </div>
  );
}
