import { useEffect } from 'preact/hooks';
import type { ChatSession } from '../chat-session.ts';
import { useChatSession } from '../use-chat-session.ts';
import { Composer } from './composer.tsx';
import { MessageList } from './message-list.tsx';
import { NoticeBanner } from './notice-banner.tsx';
import { StatusLine } from './status-line.tsx';

export interface ChatViewProps {
  session: ChatSession;
  onUnauthorized: () => void;
}

export function ChatView({ session, onUnauthorized }: ChatViewProps) {
  const snapshot = useChatSession(session);
  const { conversation, connection, notice, maxTextChars } = snapshot;

  useEffect(() => {
    if (connection.phase === 'unauthorized') onUnauthorized();
  }, [connection.phase, onUnauthorized]);

  return (
    <div class="chat">
      <header class="chat-header">
        <h1>Nexus</h1>
        <button
          type="button"
          class="secondary"
          data-testid="new-conversation-button"
          onClick={() => session.newConversation()}
          disabled={conversation.messages.length === 0}
        >
          New conversation
        </button>
      </header>
      {notice !== undefined && <NoticeBanner text={notice} />}
      <MessageList messages={conversation.messages} onRetry={(id) => session.retry(id)} />
      <StatusLine connection={connection} activity={conversation.activity} alert={conversation.alert} />
      <Composer maxTextChars={maxTextChars} onSend={(text) => session.send(text)} />
    </div>
  );
}
