import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ChatSession } from '../chat-session.ts';
import type { PairingRequestsOptions } from '../pairing-requests.ts';
import { useChatSession } from '../use-chat-session.ts';
import { usePendingAttachments } from '../use-pending-attachments.ts';
import { ChannelsPanel } from './channels-panel.tsx';
import { Composer } from './composer.tsx';
import { MemoryPanel } from './memory-panel.tsx';
import { MessageList } from './message-list.tsx';
import { NoticeBanner } from './notice-banner.tsx';
import { PairingPanel } from './pairing-panel.tsx';
import { StatusLine } from './status-line.tsx';

export interface ChatViewProps {
  session: ChatSession;
  onUnauthorized: () => void;
  /** The gateway's admin API: access requests from the chat channels and the channels' links. */
  pairingApi?: PairingRequestsOptions;
  /** This browser's web client id: the Memory panel shows what is remembered about its person. */
  clientId?: string;
}

export function ChatView({ session, onUnauthorized, pairingApi, clientId }: ChatViewProps) {
  const snapshot = useChatSession(session);
  const [openPanel, setOpenPanel] = useState<'access' | 'channels' | 'memory'>();
  const toggle = (panel: 'access' | 'channels' | 'memory') =>
    setOpenPanel(openPanel === panel ? undefined : panel);
  const memoryApi = useMemo(
    () => (pairingApi && clientId ? { ...pairingApi, clientId } : undefined),
    [pairingApi, clientId],
  );
  const { conversation, connection, notice, maxTextChars, maxUploadBytes, maxAttachments } = snapshot;
  const attachments = usePendingAttachments(session, maxAttachments);
  const canAttach = maxUploadBytes !== undefined;
  const [dragging, setDragging] = useState(false);

  useEffect(() => {
    if (connection.phase === 'unauthorized') onUnauthorized();
  }, [connection.phase, onUnauthorized]);

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping files is a shortcut; the attach button is the accessible way.
    <div
      class={`chat${dragging ? ' chat-dragging' : ''}`}
      data-testid="chat"
      onDragOver={(event) => {
        if (!canAttach || !event.dataTransfer?.types.includes('Files')) return;
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(event) => {
        if (event.currentTarget === event.target) setDragging(false);
      }}
      onDrop={(event) => {
        if (!canAttach) return;
        event.preventDefault();
        setDragging(false);
        const files = event.dataTransfer?.files;
        if (files && files.length > 0) attachments.add(files);
      }}
    >
      <header class="chat-header">
        <h1>Nexus</h1>
        <div class="header-actions">
          {pairingApi !== undefined && (
            <button
              type="button"
              class="secondary"
              data-testid="pairing-button"
              aria-expanded={openPanel === 'access'}
              onClick={() => toggle('access')}
            >
              Access
            </button>
          )}
          {pairingApi !== undefined && (
            <button
              type="button"
              class="secondary"
              data-testid="channels-button"
              aria-expanded={openPanel === 'channels'}
              onClick={() => toggle('channels')}
            >
              Channels
            </button>
          )}
          {memoryApi !== undefined && (
            <button
              type="button"
              class="secondary"
              data-testid="memory-button"
              aria-expanded={openPanel === 'memory'}
              onClick={() => toggle('memory')}
            >
              Memory
            </button>
          )}
          <button
            type="button"
            class="secondary"
            data-testid="new-conversation-button"
            onClick={() => session.newConversation()}
            disabled={conversation.messages.length === 0}
          >
            New conversation
          </button>
        </div>
      </header>
      {openPanel === 'access' && pairingApi !== undefined && (
        <PairingPanel api={pairingApi} onClose={() => setOpenPanel(undefined)} />
      )}
      {openPanel === 'channels' && pairingApi !== undefined && (
        <ChannelsPanel api={pairingApi} onClose={() => setOpenPanel(undefined)} />
      )}
      {openPanel === 'memory' && memoryApi !== undefined && (
        <MemoryPanel api={memoryApi} onClose={() => setOpenPanel(undefined)} />
      )}
      {notice !== undefined && <NoticeBanner text={notice} />}
      <MessageList
        messages={conversation.messages}
        onRetry={(id) => session.retry(id)}
        onEdit={(id, text) => session.edit(id, text)}
        onDelete={(id) => session.delete(id)}
      />
      <StatusLine connection={connection} activity={conversation.activity} alert={conversation.alert} />
      <Composer
        maxTextChars={maxTextChars}
        onSend={(text, ready) => session.send(text, ready)}
        {...(canAttach
          ? {
              attachments,
              onVoiceNote: async (audio: Blob) => {
                const upload = await session.upload(audio, { name: 'voice-note' });
                const result = session.send('', [{ upload, voice: true }]);
                if (!result.ok) throw new Error(result.reason);
              },
            }
          : {})}
      />
    </div>
  );
}
