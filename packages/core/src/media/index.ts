export { type AttachmentRefusals, createAttachmentRefusals } from './attachment-refusals.ts';
export { formatMegabytes } from './media-reply-text.ts';
export { DEFAULT_MEDIA_SETTINGS, type MediaSettings } from './media-settings.ts';
export { createFileMediaStore, type MediaStore, personFolder, type StoredMedia } from './media-store.ts';
export { prepareTurnMedia } from './prepare-turn-media.ts';
export { sniffMediaType } from './sniff-media-type.ts';
export { createOpenAiTranscriber, type Transcriber } from './transcriber.ts';
export type { TurnImage, TurnMedia } from './turn-media.ts';
