import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ChatSession, MessageAttachment } from './chat-session.ts';
import { keepSentThumbnail } from './sent-thumbnails.ts';

/** A file chosen, pasted, dropped or recorded for the next message, while and after it uploads. */
export interface PendingAttachment {
  localId: number;
  name: string;
  /** An object URL for an image's thumbnail; revoked when the file leaves the tray. */
  previewUrl?: string;
  voice: boolean;
  /** 0..1 while uploading. */
  progress: number;
  attachment?: MessageAttachment;
  error?: string;
}

export interface PendingAttachments {
  items: PendingAttachment[];
  add(files: Iterable<File | Blob>, options?: { voice?: boolean; name?: string }): void;
  remove(localId: number): void;
  /** Every file uploaded and none failed: what the next message carries. */
  ready(): MessageAttachment[] | undefined;
  busy: boolean;
  clear(): void;
}

let nextLocalId = 1;

/** The composer's tray: uploads start as soon as a file is added, so sending is instant. */
export function usePendingAttachments(session: ChatSession, maxAttachments: number | undefined) {
  const [items, setItems] = useState<PendingAttachment[]>([]);
  const itemsRef = useRef(items);
  itemsRef.current = items;
  const change = useCallback((localId: number, patch: Partial<PendingAttachment>) => {
    setItems((current) => current.map((item) => (item.localId === localId ? { ...item, ...patch } : item)));
  }, []);

  useEffect(() => () => revokeAll(itemsRef.current), []);

  const add: PendingAttachments['add'] = (files, options = {}) => {
    const room = (maxAttachments ?? 10) - itemsRef.current.length;
    const added: PendingAttachment[] = [];
    for (const file of [...files].slice(0, Math.max(0, room))) {
      const name = options.name ?? (file instanceof File ? file.name : 'file');
      const item: PendingAttachment = {
        localId: nextLocalId++,
        name,
        voice: options.voice === true,
        progress: 0,
        ...(file.type.startsWith('image/') ? { previewUrl: URL.createObjectURL(file) } : {}),
      };
      added.push(item);
      session.upload(file, { name, onProgress: (progress) => change(item.localId, { progress }) }).then(
        (upload) => change(item.localId, { progress: 1, attachment: { upload, voice: item.voice } }),
        (error: unknown) =>
          change(item.localId, { error: error instanceof Error ? error.message : 'The upload failed.' }),
      );
    }
    setItems((current) => [...current, ...added]);
  };

  const remove = (localId: number) => {
    setItems((current) => {
      revokeAll(current.filter((item) => item.localId === localId));
      return current.filter((item) => item.localId !== localId);
    });
  };

  const ready = () => {
    const current = itemsRef.current;
    if (current.some((item) => item.attachment === undefined)) return undefined;
    return current.map((item) => item.attachment!);
  };

  /** After sending: the sent images' thumbnails move to the sent message (sent-thumbnails.ts). */
  const clear = () => {
    for (const item of itemsRef.current) {
      const uploadId = item.attachment?.upload.uploadId;
      if (item.previewUrl && uploadId) keepSentThumbnail(uploadId, item.previewUrl);
      else if (item.previewUrl) URL.revokeObjectURL(item.previewUrl);
    }
    setItems([]);
  };

  const busy = items.some((item) => item.attachment === undefined && item.error === undefined);
  return { items, add, remove, ready, busy, clear } satisfies PendingAttachments;
}

function revokeAll(items: readonly PendingAttachment[]): void {
  for (const item of items) if (item.previewUrl) URL.revokeObjectURL(item.previewUrl);
}
