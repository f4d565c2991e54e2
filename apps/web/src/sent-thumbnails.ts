/**
 * Thumbnails of the images this page sent, by upload id: the object URL the composer's tray made
 * for the picked file moves here when the message goes out, so the sent bubble can show it.
 * They last as long as the page; after a reload a sent image is listed by name.
 */
const thumbnails = new Map<string, string>();
const limit = 50;

export function keepSentThumbnail(uploadId: string, objectUrl: string): void {
  thumbnails.set(uploadId, objectUrl);
  while (thumbnails.size > limit) {
    const [oldest, url] = thumbnails.entries().next().value as [string, string];
    thumbnails.delete(oldest);
    URL.revokeObjectURL(url);
  }
}

export function sentThumbnail(uploadId: string | undefined): string | undefined {
  return uploadId === undefined ? undefined : thumbnails.get(uploadId);
}
