import type { TurnMedia } from './turn-media.ts';

/**
 * Shown ahead of the model's answer: what the assistant heard in each voice note (so a
 * mistranscription is visible, as the big assistants do) and what could not be used.
 */
export function mediaPrefix(media: TurnMedia): string {
  const lines = [...media.heard.map((text) => `🎤 I heard: “${text}”`), ...media.problems];
  return lines.length === 0 ? '' : `${lines.join('\n')}\n\n`;
}

/** The person's side of the turn in history: their words (transcripts included), and what they attached. */
export function storedUserText(text: string, media: TurnMedia | undefined): string {
  if (!media) return text;
  const notes = [
    ...(media.images.length > 0 ? [`[sent ${media.images.length} image(s)]`] : []),
    ...(media.documents.length > 0 ? [`[sent ${media.documents.length} document(s)]`] : []),
  ];
  return [text, ...notes].filter((part) => part.trim() !== '').join('\n');
}
