import { useEffect, useState } from 'preact/hooks';
import type { ChatSession, ChatSnapshot } from '../chat-session.ts';
import { usePendingAttachments } from '../use-pending-attachments.ts';
import { Composer } from './composer.tsx';
import { ConnectionBanner } from './connection-banner.tsx';
import { MessageList } from './message-list.tsx';
import { NoticeBanner } from './notice-banner.tsx';
import { StatusLine } from './status-line.tsx';

/** The conversation shown, its status and the composer; files can be dropped anywhere on it. */
export function ChatPane({ session, snapshot }: { session: ChatSession; snapshot: ChatSnapshot }) {
  const { conversation, connection, notice, maxTextChars, maxUploadBytes, maxAttachments, voiceNotes } =
    snapshot;
  const attachments = usePendingAttachments(session, maxAttachments);
  const canAttach = maxUploadBytes !== undefined;
  const [dragging, setDragging] = useState(false);
  const [offline, setOffline] = useState(() => !navigator.onLine);
  useEffect(() => {
    const update = () => setOffline(!navigator.onLine);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  const stoppable = session.canStop();
  return (
    // Dropping files anywhere is a shortcut; the attach button is the accessible way.
    <main
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
      {notice !== undefined && <NoticeBanner text={notice} />}
      <MessageList
        // A conversation opened is read from its end, wherever the last one was scrolled to.
        key={conversation.conversationId}
        messages={conversation.messages}
        earlier={conversation.earlier}
        onShowEarlier={() => session.showEarlier()}
        onRetry={(id) => session.retry(id)}
        onEdit={(id, text) => session.edit(id, text)}
        onDelete={(id) => session.delete(id)}
        onRegenerate={(id) => session.regenerate(id)}
        onChooseVersion={(id, replyId) => session.chooseVersion(id, replyId)}
      />
      <ConnectionBanner connection={connection} offline={offline} />
      <StatusLine connection={connection} activity={conversation.activity} alert={conversation.alert} />
      <Composer
        focusKey={conversation.conversationId}
        maxTextChars={maxTextChars}
        onSend={(text, ready) => session.send(text, ready)}
        {...(stoppable ? { onStop: () => session.stopReply() } : {})}
        {...(canAttach
          ? {
              attachments,
              // The microphone is offered only when the gateway can transcribe what is said.
              ...(voiceNotes
                ? {
                    onVoiceNote: async (audio: Blob) => {
                      const upload = await session.upload(audio, { name: 'voice-note' });
                      const result = session.send('', [{ upload, voice: true }]);
                      if (!result.ok) throw new Error(result.reason);
                    },
                  }
                : {}),
            }
          : {})}
      />
    </main>
  );
}
