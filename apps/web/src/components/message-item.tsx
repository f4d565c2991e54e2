import { useEffect, useRef, useState } from 'preact/hooks';
import type { SendResult } from '../chat-session.ts';
import type { ChatMessage, SentAttachment } from '../conversation-state.ts';
import type { VisibleMessage } from '../reply-versions.ts';
import { CopyButton } from './copy-button.tsx';
import { EditForm } from './edit-form.tsx';
import { MarkdownView } from './markdown-view.tsx';
import { RegenerateButton } from './regenerate-button.tsx';
import { ReplyFooter } from './reply-footer.tsx';
import { formatSize, ReplyMediaView } from './reply-media-view.tsx';

export interface MessageActions {
  onRetry: (clientMessageId: string) => void;
  onEdit?: (clientMessageId: string, text: string) => SendResult;
  onDelete?: (clientMessageId: string) => SendResult;
  /** Another answer to the person's message (Regenerate, Try again). */
  onRegenerate?: (clientMessageId: string) => SendResult;
  /** Shows (and keeps in history) another version of the answer to the person's message. */
  onChooseVersion?: (clientMessageId: string, replyId: string) => SendResult;
}

export interface MessageItemProps extends MessageActions, Omit<VisibleMessage, 'message'> {
  message: ChatMessage;
}

const longPressMs = 450;

export function MessageItem(props: MessageItemProps) {
  const { message, onRetry, onEdit, onDelete, versions, shownText, regenerateOf } = props;
  const streaming = message.state === 'streaming';
  const [editing, setEditing] = useState(false);
  const [actionsOpen, setActionsOpen] = useState(false);
  const press = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const revisable = message.role === 'user' && message.state === 'sent' && !message.deleted;
  // Copy once the reply is complete: a half-written one would copy half.
  const copyable =
    message.role === 'assistant' && message.state === 'done' && message.text !== '' && !message.deleted;
  const regenerable = regenerateOf !== undefined && props.onRegenerate !== undefined;
  const hasActions = !editing && ((revisable && (onEdit || onDelete)) || copyable || regenerable);
  const cancelPress = () => clearTimeout(press.current);
  const itemRef = useRef<HTMLLIElement>(null);
  // A touch anywhere else puts the long-pressed actions away again.
  useEffect(() => {
    if (!actionsOpen) return;
    const outside = (event: PointerEvent) => {
      if (!itemRef.current?.contains(event.target as Node)) setActionsOpen(false);
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [actionsOpen]);
  return (
    <li
      ref={itemRef}
      class={`message message-${message.role} message-${message.state}${message.superseded ? ' message-superseded' : ''}${actionsOpen ? ' message-actions-open' : ''}`}
      data-testid="message"
      data-role={message.role}
      data-state={message.state}
      data-superseded={message.superseded ? 'true' : undefined}
      aria-busy={streaming}
      // Touch screens have no hover: a long press shows the message's actions instead.
      onPointerDown={(event) => {
        if (event.pointerType !== 'touch' || !hasActions) return;
        cancelPress();
        press.current = setTimeout(() => setActionsOpen(true), longPressMs);
      }}
      onContextMenu={(event) => {
        // Android Chrome reports a long press as a context menu: show the actions instead.
        if (!hasActions || !window.matchMedia?.('(hover: none)').matches) return;
        event.preventDefault();
        cancelPress();
        setActionsOpen(true);
      }}
      onPointerUp={cancelPress}
      onPointerMove={cancelPress}
      onPointerCancel={cancelPress}
    >
      {message.superseded && versions === undefined && (
        <span class="message-meta">Earlier answer, before your change</span>
      )}
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
        message.text !== '' && <MarkdownView text={message.text} />
      ) : (
        (shownText ?? message.text) !== '' && <p class="message-text">{shownText ?? message.text}</p>
      )}
      {streaming && (
        // Visual only: the message is aria-busy and the status line says Nexus is typing.
        <span class="streaming-indicator" data-testid="streaming-indicator" aria-hidden="true" />
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
      <ReplyFooter {...props} />
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
      {hasActions && (
        <span class="message-actions" data-testid="message-actions">
          {copyable && <CopyButton text={() => message.text} label="Copy this reply" />}
          {regenerable && (
            <RegenerateButton
              onRegenerate={() => {
                setActionsOpen(false);
                props.onRegenerate?.(regenerateOf);
              }}
            />
          )}
          {revisable && onEdit && message.text !== '' && (
            <button
              type="button"
              class="link-button"
              data-testid="edit-message"
              aria-label="Edit this message"
              onClick={() => {
                setActionsOpen(false);
                setEditing(true);
              }}
            >
              Edit
            </button>
          )}
          {revisable && onDelete && (
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

function describe(attachment: SentAttachment): string {
  const icon = attachment.kind === 'image' ? '🖼' : attachment.kind === 'voice' ? '🎤' : '📄';
  const name = attachment.kind === 'voice' ? 'Voice note' : (attachment.name ?? attachment.kind);
  return `${icon} ${name}${attachment.sizeBytes === undefined ? '' : ` (${formatSize(attachment.sizeBytes)})`}`;
}
