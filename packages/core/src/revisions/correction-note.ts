/** Longer texts are shortened in the note; the edited turn itself keeps the whole new text. */
const QUOTED_CHARS = 400;

/**
 * What the model reads, at the point in history where an older message was edited: which words
 * changed, and that its earlier reply answered the old ones. Phrased as a report, not as the
 * person speaking, so the model does not answer it as a new request.
 */
export function correctionNote(previousText: string, newText: string): string {
  return `[Note: the person edited one of their earlier messages. It said "${quoted(previousText)}" and now says "${quoted(newText)}". Your earlier reply answered the old words; take the correction into account from now on.]`;
}

function quoted(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= QUOTED_CHARS ? flat : `${flat.slice(0, QUOTED_CHARS - 1)}…`;
}
