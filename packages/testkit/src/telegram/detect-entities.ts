import type { MessageEntity } from 'grammy/types';

const MENTION_PATTERN = /(?<![\w@])@[A-Za-z][A-Za-z0-9_]{3,31}\b/g;
const COMMAND_PATTERN = /(?<![\w/])\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z][A-Za-z0-9_]{3,31})?(?![\w/])/g;
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"]+/g;

/**
 * The entities Telegram's servers attach to plain text a person types: `@username` mentions,
 * `/commands` and URLs. Offsets and lengths are UTF-16 code units, as in the Bot API.
 */
export function detectEntities(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  for (const match of text.matchAll(MENTION_PATTERN))
    entities.push({ type: 'mention', offset: match.index, length: match[0].length });
  for (const match of text.matchAll(COMMAND_PATTERN))
    entities.push({ type: 'bot_command', offset: match.index, length: match[0].length });
  for (const match of text.matchAll(URL_PATTERN))
    entities.push({ type: 'url', offset: match.index, length: match[0].length });
  return entities.sort((left, right) => left.offset - right.offset);
}
