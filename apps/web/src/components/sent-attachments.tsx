import type { SentAttachment } from '../conversation-state.ts';
import { sentThumbnail } from '../sent-thumbnails.ts';
import { formatSize } from './reply-media-view.tsx';

/** The files of a sent message: an image this page sent as its thumbnail, anything else by name. */
export function SentAttachments({ attachments }: { attachments: SentAttachment[] }) {
  return (
    <ul class="sent-attachments" aria-label="Attachments">
      {attachments.map((attachment, index) => {
        const thumbnail = attachment.kind === 'image' ? sentThumbnail(attachment.uploadId) : undefined;
        return (
          <li key={index} data-testid="sent-attachment">
            {thumbnail ? (
              <img class="sent-thumbnail" src={thumbnail} alt={attachment.name ?? 'Image'} />
            ) : (
              describe(attachment)
            )}
          </li>
        );
      })}
    </ul>
  );
}

function describe(attachment: SentAttachment): string {
  const icon = attachment.kind === 'image' ? '🖼' : attachment.kind === 'voice' ? '🎤' : '📄';
  const name = attachment.kind === 'voice' ? 'Voice note' : (attachment.name ?? attachment.kind);
  return `${icon} ${name}${attachment.sizeBytes === undefined ? '' : ` (${formatSize(attachment.sizeBytes)})`}`;
}
