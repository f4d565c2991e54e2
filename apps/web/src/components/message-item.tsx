import { useEffect, useRef, useState } from 'preact/hooks';
import type { SendResult } from '../chat-session.ts';
import type { ChatMessage } from '../conversation-state.ts';
import type { VisibleMessage } from '../reply-versions.ts';
import { CopyButton } from './copy-button.tsx';
import { EditForm } from './edit-form.tsx';
import { LazyMarkdownView } from './lazy-markdown-view.tsx';
import { RegenerateButton } from './regenerate-button.tsx';
import { ReplyFooter } from './reply-footer.tsx';
import { ReplyMediaView } from './reply-media-view.tsx';
import { SentAttachments } from './sent-attachments.tsx';

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
/** How long Undo is offered before a delete is sent (it also removes what memory learned from it). */
export const undoDeleteMs = 5000;

export function MessageItem(props: MessageItemProps) {
  const { message, onRetry, onEdit, onDelete, versions, shownText, regenerateOf } = props;
  const streaming = message.state === 'streaming';
  const [editing, setEditing] = useState(false);
  const [actionsOpen, setActionsOpen] = useState(false);
  const deleting = useDelayedDelete(message.id, onDelete);
  const press = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const revisable =
    message.role === 'user' && message.state === 'sent' && !message.deleted && !deleting.pending;
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
      class={`message message-${message.restarting ? 'restart-notice' : message.role} message-${message.state}${message.superseded ? ' message-superseded' : ''}${actionsOpen ? ' message-actions-open' : ''}${editing ? ' message-editing' : ''}`}
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
      <MessageBody
        message={message}
        editing={editing && onEdit !== undefined}
        deleting={deleting}
        onEditDone={() => setEditing(false)}
        {...(onEdit ? { onEdit } : {})}
        {...(shownText !== undefined ? { shownText } : {})}
      />
      {streaming && (
        // Visual only: the message is aria-busy and the status line says Nexus is typing.
        <span class="streaming-indicator" data-testid="streaming-indicator" aria-hidden="true" />
      )}
      {!message.deleted && message.attachments && message.attachments.length > 0 && (
        <SentAttachments attachments={message.attachments} />
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
              onClick={() => {
                setActionsOpen(false);
                deleting.start();
              }}
            >
              Delete
            </button>
          )}
        </span>
      )}
    </li>
  );
}

interface MessageBodyProps {
  message: ChatMessage;
  editing: boolean;
  deleting: ReturnType<typeof useDelayedDelete>;
  onEditDone: () => void;
  onEdit?: MessageActions['onEdit'];
  /** A user message paged back to an earlier answer shows the words that answer was to. */
  shownText?: string;
}

/** What a message says: its text or Markdown, the edit form, or what became of it. */
function MessageBody({ message, editing, deleting, onEditDone, onEdit, shownText }: MessageBodyProps) {
  return (
    <>
      {message.deleted ? (
        <p class="message-text message-deleted">You deleted this message.</p>
      ) : message.restarting ? (
        <p class="message-text" data-testid="restart-notice">
          Nexus is restarting. Your message is kept and will be answered as soon as it is back; there is no
          need to send it again.
        </p>
      ) : deleting.pending ? (
        <p class="message-text undo-bar" data-testid="undo-delete-bar">
          Deleting this message…
          <button type="button" class="link-button" data-testid="undo-delete" onClick={deleting.undo}>
            Undo
          </button>
        </p>
      ) : editing && onEdit ? (
        <EditForm
          text={message.text}
          onCancel={onEditDone}
          onSave={(text) => {
            const result = onEdit(message.id, text);
            if (result.ok) onEditDone();
            return result;
          }}
        />
      ) : message.role === 'assistant' ? (
        message.text !== '' && <LazyMarkdownView text={message.text} final={message.state !== 'streaming'} />
      ) : (
        (shownText ?? message.text) !== '' && <p class="message-text">{shownText ?? message.text}</p>
      )}
    </>
  );
}

/**
 * Delete waits `undoDeleteMs` with Undo offered, then goes out. Leaving the conversation (the item
 * unmounts) sends it at once: a delete the person asked for is never dropped.
 */
function useDelayedDelete(id: string, onDelete: MessageActions['onDelete']) {
  const [pending, setPending] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const send = useRef<(() => void) | undefined>(undefined);
  const fire = () => {
    clearTimeout(timer.current);
    const action = send.current;
    send.current = undefined;
    action?.();
  };
  useEffect(() => fire, []);
  return {
    pending,
    start: () => {
      if (!onDelete) return;
      send.current = () => {
        setPending(false);
        onDelete(id);
      };
      setPending(true);
      timer.current = setTimeout(fire, undoDeleteMs);
    },
    undo: () => {
      clearTimeout(timer.current);
      send.current = undefined;
      setPending(false);
    },
  };
}
