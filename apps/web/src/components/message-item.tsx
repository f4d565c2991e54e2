import { useMemo, useState } from 'preact/hooks';
import type { SendResult } from '../chat-session.ts';
import type { ChatMessage, SentAttachment } from '../conversation-state.ts';
import { useMarkdown } from '../use-markdown.ts';
import { formatSize, ReplyMediaView } from './reply-media-view.tsx';

export interface MessageActions {
  onRetry: (clientMessageId: string) => void;
  onEdit?: (clientMessageId: string, text: string) => SendResult;
  onDelete?: (clientMessageId: string) => SendResult;
}

export interface MessageItemProps extends MessageActions {
  message: ChatMessage;
}

export function MessageItem({ message, onRetry, onEdit, onDelete }: MessageItemProps) {
  const streaming = message.state === 'streaming';
  const [editing, setEditing] = useState(false);
  const revisable = message.role === 'user' && message.state === 'sent' && !message.deleted;
  return (
    <li
      class={`message message-${message.role} message-${message.state}${message.superseded ? ' message-superseded' : ''}`}
      data-testid="message"
      data-role={message.role}
      data-state={message.state}
      data-superseded={message.superseded ? 'true' : undefined}
      aria-busy={streaming}
    >
      {message.superseded && <span class="message-meta">Earlier answer, before your change</span>}
      {message.deleted ? (
        <p class="message-text message-deleted">You deleted this message.</p>
      ) : editing && onEdit ? (
        <EditForm
          text={message.text}
          onCancel={() => setEditing(false)}
          onSave={(text) => {
            const result = onEdit(message.id, text);
            if (result.ok) setEditing(false);
            return result;
          }}
        />
      ) : message.role === 'assistant' ? (
        <AssistantText text={message.text} />
      ) : (
        message.text !== '' && <p class="message-text">{message.text}</p>
      )}
      {!message.deleted && message.attachments && message.attachments.length > 0 && (
        <ul class="sent-attachments" aria-label="Attachments">
          {message.attachments.map((attachment, index) => (
            <li key={index} data-testid="sent-attachment">
              {describe(attachment)}
            </li>
          ))}
        </ul>
      )}
      {message.media?.map((media, index) => (
        <ReplyMediaView key={index} media={media} />
      ))}
      {message.edited && !message.deleted && (
        <span class="message-meta" data-testid="edited-mark">
          edited
        </span>
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
      {revisable && !editing && (onEdit || onDelete) && (
        <span class="message-actions">
          {onEdit && message.text !== '' && (
            <button
              type="button"
              class="link-button"
              data-testid="edit-message"
              aria-label="Edit this message"
              onClick={() => setEditing(true)}
            >
              Edit
            </button>
          )}
          {onDelete && (
            <button
              type="button"
              class="link-button"
              data-testid="delete-message"
              aria-label="Delete this message"
              onClick={() => onDelete(message.id)}
            >
              Delete
            </button>
          )}
        </span>
      )}
    </li>
  );
}

function EditForm(props: { text: string; onSave: (text: string) => SendResult; onCancel: () => void }) {
  const [text, setText] = useState(props.text);
  const [problem, setProblem] = useState<string>();
  const save = () => {
    const result = props.onSave(text);
    if (!result.ok) setProblem(result.reason);
  };
  return (
    <form
      class="edit-form"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <textarea
        data-testid="edit-input"
        aria-label="Edit message"
        value={text}
        rows={Math.min(6, text.split('\n').length)}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') props.onCancel();
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            save();
          }
        }}
      />
      {problem && (
        <span class="message-meta message-failure" role="alert">
          {problem}
        </span>
      )}
      <span class="message-actions">
        <button type="submit" class="link-button" data-testid="save-edit">
          Save
        </button>
        <button type="button" class="link-button" onClick={props.onCancel}>
          Cancel
        </button>
      </span>
    </form>
  );
}

function describe(attachment: SentAttachment): string {
  const icon = attachment.kind === 'image' ? '🖼' : attachment.kind === 'voice' ? '🎤' : '📄';
  const name = attachment.kind === 'voice' ? 'Voice note' : (attachment.name ?? attachment.kind);
  return `${icon} ${name}${attachment.sizeBytes === undefined ? '' : ` (${formatSize(attachment.sizeBytes)})`}`;
}

function AssistantText({ text }: { text: string }) {
  const renderMarkdown = useMarkdown();
  const html = useMemo(() => renderMarkdown?.(text), [renderMarkdown, text]);
  if (text === '') return null;
  if (html === undefined) return <p class="message-text">{text}</p>;
  // renderMarkdown escapes all HTML in the model's text and validates every link (see markdown.ts).
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
