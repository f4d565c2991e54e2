import { useMemo } from 'preact/hooks';
import type { ChatMessage } from '../conversation-state.ts';
import { useMarkdown } from '../use-markdown.ts';

export interface MessageItemProps {
  message: ChatMessage;
  onRetry: (clientMessageId: string) => void;
}

export function MessageItem({ message, onRetry }: MessageItemProps) {
  const streaming = message.state === 'streaming';
  return (
    <li
      class={`message message-${message.role} message-${message.state}`}
      data-testid="message"
      data-role={message.role}
      data-state={message.state}
      aria-busy={streaming}
    >
      {message.role === 'assistant' ? (
        <AssistantText text={message.text} />
      ) : (
        <p class="message-text">{message.text}</p>
      )}
      {message.role === 'user' && message.state === 'pending' && <span class="message-meta">Sending…</span>}
      {message.role === 'user' && message.state === 'failed' && (
        <span class="message-meta message-failure">
          {message.failure ?? 'Not sent.'}
          {message.retryable && (
            <button type="button" class="link-button" onClick={() => onRetry(message.id)}>
              Retry
            </button>
          )}
        </span>
      )}
    </li>
  );
}

function AssistantText({ text }: { text: string }) {
  const renderMarkdown = useMarkdown();
  const html = useMemo(() => renderMarkdown?.(text), [renderMarkdown, text]);
  if (html === undefined) return <p class="message-text">{text}</p>;
  // renderMarkdown escapes all HTML in the model's text and validates every link (see markdown.ts).
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
