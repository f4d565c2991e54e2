import { useLayoutEffect, useRef } from 'preact/hooks';
import type { ChatMessage } from '../conversation-state.ts';
import { visibleMessages } from '../reply-versions.ts';
import { type MessageActions, MessageItem } from './message-item.tsx';

export interface MessageListProps extends MessageActions {
  messages: readonly ChatMessage[];
}

const nearBottomPixels = 80;

export function MessageList({ messages, ...actions }: MessageListProps) {
  const listRef = useRef<HTMLDivElement>(null);
  const followRef = useRef(true);

  // Follow the conversation as replies stream in, unless the reader scrolled up to read.
  useLayoutEffect(() => {
    const list = listRef.current;
    if (list && followRef.current) list.scrollTop = list.scrollHeight;
  });

  return (
    // The log role goes on the scrolling container: on the <ol> itself it would hide the list
    // semantics its <li> items need.
    <div
      ref={listRef}
      class="message-list"
      data-testid="message-list"
      role="log"
      aria-live="polite"
      aria-label="Conversation"
      onScroll={(event) => {
        const list = event.currentTarget;
        followRef.current = list.scrollHeight - list.scrollTop - list.clientHeight < nearBottomPixels;
      }}
    >
      {messages.length === 0 ? (
        <p class="empty">Say hello to start a conversation.</p>
      ) : (
        <ol class="message-items">
          {visibleMessages(messages).map((row) => (
            <MessageItem key={`${row.message.role}:${row.message.id}`} {...row} {...actions} />
          ))}
        </ol>
      )}
    </div>
  );
}
