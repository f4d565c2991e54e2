import { parseFenceLines } from './fence-lines.ts';

const ZERO_WIDTH_SPACE = '\u200b';
const MASS_MENTION = /@(everyone|here)\b/g;
const MENTION = /<@([!&]?\d+)>/g;

/**
 * Keeps Markdown (Discord renders it) but defuses mentions the model may have written or echoed:
 * `@everyone`/`@here` get a zero-width space and `<@id>`, `<@!id>`, `<@&id>` stop being mention
 * syntax. Code is left untouched: Discord does not resolve mentions there. Adapters should
 * still send with `allowedMentions: { parse: [] }`; this makes the text itself safe to repost.
 */
export function renderDiscordMarkdown(markdown: string): string {
  const text = markdown.replace(/\r\n?/g, '\n');
  return parseFenceLines(text)
    .map((line) => {
      const source = text.slice(line.start, line.end);
      return line.role === 'text' ? defuseOutsideCodeSpans(source) : source;
    })
    .join('\n');
}

function defuseOutsideCodeSpans(line: string): string {
  let result = '';
  let index = 0;
  while (index < line.length) {
    const tick = line.indexOf('`', index);
    if (tick === -1) break;
    let run = 1;
    while (line[tick + run] === '`') run += 1;
    const fence = '`'.repeat(run);
    let close = line.indexOf(fence, tick + run);
    while (close !== -1 && line[close + run] === '`') {
      let skip = close;
      while (line[skip] === '`') skip += 1;
      close = line.indexOf(fence, skip);
    }
    if (close === -1) {
      result += defuse(line.slice(index, tick + run));
      index = tick + run;
      continue;
    }
    result += defuse(line.slice(index, tick)) + line.slice(tick, close + run);
    index = close + run;
  }
  return result + defuse(line.slice(index));
}

function defuse(text: string): string {
  return text.replace(MASS_MENTION, `@${ZERO_WIDTH_SPACE}$1`).replace(MENTION, `<@${ZERO_WIDTH_SPACE}$1>`);
}
