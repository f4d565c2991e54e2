import type { PendingAttachment } from '../use-pending-attachments.ts';

export interface AttachmentTrayProps {
  items: readonly PendingAttachment[];
  onRemove: (localId: number) => void;
}

/** The files waiting to go with the next message: thumbnail or name, progress or error, remove. */
export function AttachmentTray({ items, onRemove }: AttachmentTrayProps) {
  if (items.length === 0) return null;
  return (
    <ul class="attachment-tray" data-testid="attachment-tray" aria-label="Attachments for the next message">
      {items.map((item) => (
        <li
          key={item.localId}
          class="pending-attachment"
          data-testid="pending-attachment"
          data-state={item.error ? 'failed' : item.attachment ? 'uploaded' : 'uploading'}
        >
          {item.previewUrl ? (
            <img class="pending-thumbnail" src={item.previewUrl} alt={item.name} />
          ) : (
            <span class="pending-name">{item.voice ? '🎤 Voice note' : item.name}</span>
          )}
          {item.error ? (
            <span class="pending-error" role="alert">
              {item.error}
            </span>
          ) : (
            item.attachment === undefined && (
              <progress
                class="pending-progress"
                max={1}
                value={item.progress}
                aria-label={`Uploading ${item.name}`}
              />
            )
          )}
          <button
            type="button"
            class="pending-remove"
            data-testid="remove-attachment"
            aria-label={`Remove ${item.name}`}
            onClick={() => onRemove(item.localId)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
