/**
 * Every character that starts or ends inline Markdown the channel renderers (and Discord) understand;
 * block syntax (`#`, `-`, `>`) only counts at the start of a line, which a name never is here.
 */
const MARKDOWN_SYNTAX = /[\\`*_~[\]()<>|!]/g;

/**
 * Text someone else chose (a display name) as literal Markdown: every syntax character gets a
 * backslash, which each channel's renderer (Telegram HTML, WhatsApp text, the web client) turns
 * back into the plain character, and Discord shows as the character itself. Line breaks become
 * spaces so a name cannot start a heading or a list of its own. A name like
 * `[Support](https://evil.example)` stays text instead of becoming a link.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(MARKDOWN_SYNTAX, (character) => `\\${character}`);
}
