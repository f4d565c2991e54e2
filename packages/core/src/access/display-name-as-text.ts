import { escapeMarkdown } from './escape-markdown.ts';

/** A dot that could join two labels of a host name (`evil.example`, `t.me`, `пример.рф`). */
const HOST_DOT = /(?<=[\p{L}\p{N}])[.。．｡](?=[\p{L}\p{N}]{2})/gu;

/** A URL scheme's separator (`https://`, `tg://`), or `mailto:` and its kin before an address. */
const SCHEME = /(?<=[\p{L}\p{N}])(:)(?=\/\/|[^\s@]+@)/gu;

/**
 * A display name someone else chose, as text that no client turns into a link. Markdown syntax is
 * escaped (escapeMarkdown), and so are the bare URLs and host names the clients link by
 * themselves — Telegram and WhatsApp link `evil.example` without a scheme, Discord and the web
 * client link `https://…` — by writing the dots and the scheme's colon as `[.]` and `[:]`
 * ("defanged", as security notices write addresses): `https[:]//evil[.]example/login` still
 * reads as what the name says and leads nowhere.
 */
export function displayNameAsText(name: string): string {
  return escapeMarkdown(name.replace(HOST_DOT, '[.]').replace(SCHEME, '[:]'));
}
