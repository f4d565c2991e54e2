import { useEffect, useState } from 'preact/hooks';
import type { ChatSession } from '../chat-session.ts';
import type { PairingRequestsOptions } from '../pairing-requests.ts';
import { useChatSession } from '../use-chat-session.ts';
import { Composer } from './composer.tsx';
import { MessageList } from './message-list.tsx';
import { NoticeBanner } from './notice-banner.tsx';
import { PairingPanel } from './pairing-panel.tsx';
import { StatusLine } from './status-line.tsx';

export interface ChatViewProps {
  session: ChatSession;
  onUnauthorized: () => void;
  /** Where the owner approves access requests from the chat channels. */
  pairingApi?: PairingRequestsOptions;
}

export function ChatView({ session, onUnauthorized, pairingApi }: ChatViewProps) {
  const snapshot = useChatSession(session);
  const [showPairing, setShowPairing] = useState(false);
  const { conversation, connection, notice, maxTextChars } = snapshot;

  useEffect(() => {
    if (connection.phase === 'unauthorized') onUnauthorized();
  }, [connection.phase, onUnauthorized]);

  return (
    <div class="chat">
      <header class="chat-header">
        <h1>Nexus</h1>
        <div class="header-actions">
          {pairingApi !== undefined && (
            <button
              type="button"
              class="secondary"
              data-testid="pairing-button"
              aria-expanded={showPairing}
              onClick={() => setShowPairing(!showPairing)}
            >
              Access
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
      {showPairing && pairingApi !== undefined && (
        <PairingPanel api={pairingApi} onClose={() => setShowPairing(false)} />
      )}
      {notice !== undefined && <NoticeBanner text={notice} />}
      <MessageList messages={conversation.messages} onRetry={(id) => session.retry(id)} />
      <StatusLine connection={connection} activity={conversation.activity} alert={conversation.alert} />
      <Composer maxTextChars={maxTextChars} onSend={(text) => session.send(text)} />
    </div>
  );
}
