import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ChatMessage } from '../conversation-state.ts';
import { visibleMessages } from '../reply-versions.ts';
import { EarlierMessages } from './earlier-messages.tsx';
import { type MessageActions, MessageItem } from './message-item.tsx';
import { useKeptPlace } from './use-kept-place.ts';

export interface MessageListProps extends MessageActions {
  messages: readonly ChatMessage[];
  /** Older history on the gateway (a seq) or not (null, unset); see ConversationState. */
  earlier?: number | null | undefined;
  onShowEarlier?: () => Promise<unknown>;
}

const nearBottomPixels = 80;

export function MessageList({ messages, earlier, onShowEarlier, ...actions }: MessageListProps) {
  const listRef = useRef<HTMLDivElement>(null);
  const followRef = useRef(true);
  /** Where the list was last scrolled to the bottom by this code: above it, the reader moved up. */
  const autoScrollTop = useRef(0);
  const [atBottom, setAtBottom] = useState(true);
  const lastUserId = useRef<string | undefined>(undefined);
  const newestUser = messages.findLast((message) => message.role === 'user')?.id;
  const markPlace = useKeptPlace(listRef, messages[0]?.id);

  // Follow the conversation as replies stream in, unless the reader scrolled up to read. Sending
  // a message always brings the reader down to it, wherever they were.
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const sent =
      newestUser !== undefined && lastUserId.current !== undefined && newestUser !== lastUserId.current;
    lastUserId.current = newestUser;
    if (sent) followRef.current = true;
    // A reader who just scrolled up, whose scroll event has not arrived yet: a reply's frame that
    // lands first must not pull them back down (as the resize observer below already knows).
    else if (list.scrollTop < autoScrollTop.current - 2) followRef.current = false;
    if (followRef.current) {
      list.scrollTop = list.scrollHeight;
      autoScrollTop.current = list.scrollTop;
    }
  });

  // Replies grow after they render (a long reply's blocks are laid out as they near the screen,
  // images load): keep the bottom in view while following.
  useEffect(() => {
    const list = listRef.current;
    const items = list?.querySelector('.message-items');
    if (!list || !items || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      // The scroll event of a reader who just scrolled up may not have arrived yet.
      if (!followRef.current || list.scrollTop < autoScrollTop.current - 2) return;
      list.scrollTop = list.scrollHeight;
      autoScrollTop.current = list.scrollTop;
    });
    observer.observe(items);
    return () => observer.disconnect();
  }, [messages.length === 0]);

  const jumpToLatest = () => {
    const list = listRef.current;
    if (!list) return;
    followRef.current = true;
    list.scrollTo({ top: list.scrollHeight, behavior: 'smooth' });
  };

  return (
    <div class="message-list-frame">
      {/* The log role goes on the scrolling container: on the <ol> itself it would hide the list
          semantics its <li> items need. */}
      <div
        ref={listRef}
        class="message-list"
        data-testid="message-list"
        role="log"
        aria-live="polite"
        aria-label="Conversation"
        onScroll={(event) => {
          const list = event.currentTarget;
          const near = list.scrollHeight - list.scrollTop - list.clientHeight < nearBottomPixels;
          followRef.current = near;
          setAtBottom(near);
        }}
      >
        {typeof earlier === 'number' && onShowEarlier && messages.length > 0 && (
          <EarlierMessages
            key={earlier}
            onShowEarlier={() => {
              markPlace();
              return onShowEarlier();
            }}
          />
        )}
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
      {!atBottom && messages.length > 0 && (
        <button type="button" class="jump-to-latest" data-testid="jump-to-latest" onClick={jumpToLatest}>
          ↓ Jump to latest
        </button>
      )}
    </div>
  );
}
