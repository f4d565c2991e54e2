import type { ReplyMedia } from '@nexus/protocol';
import { useEffect, useMemo } from 'preact/hooks';

/** Raster types a browser shows safely from a data: URL (no SVG: it is a document, not a picture). */
const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * One file of a reply. The bytes came inside the conversation's own event stream, so nothing is
 * fetched: images render from a data: URL, other files download from a blob: URL. A file whose
 * bytes were not kept (too large for the replay log or this browser's storage) shows its name
 * and size only.
 */
export function ReplyMediaView({ media }: { media: ReplyMedia }) {
  const size = formatSize(media.sizeBytes);
  if (media.base64 === '') {
    return (
      <p class="reply-file reply-file-missing" data-testid="reply-file">
        {media.name} ({size}) — no longer available here
      </p>
    );
  }
  if (media.kind === 'image' && INLINE_IMAGE_TYPES.has(media.mimeType)) {
    return (
      <img
        class="reply-image"
        data-testid="reply-image"
        src={`data:${media.mimeType};base64,${media.base64}`}
        alt={media.name}
      />
    );
  }
  return <DownloadLink media={media} size={size} />;
}

function DownloadLink({ media, size }: { media: ReplyMedia; size: string }) {
  const url = useMemo(() => {
    const binary = atob(media.base64);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  }, [media.base64]);
  useEffect(() => () => URL.revokeObjectURL(url), [url]);
  return (
    <a class="reply-file" data-testid="reply-file" href={url} download={media.name}>
      ⬇ {media.name} ({size})
    </a>
  );
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 102.4) / 10} KB`;
  return `${Math.round(bytes / (1024 * 104.8576)) / 10} MB`;
}
