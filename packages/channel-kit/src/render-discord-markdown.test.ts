import { describe, expect, it } from 'vitest';
import { renderDiscordMarkdown } from './render-discord-markdown.ts';

const ZWSP = '\u200b';

describe('renderDiscordMarkdown', () => {
  it('defuses mass mentions and user/role mention syntax', () => {
    expect(renderDiscordMarkdown('Hey @everyone and @here!')).toBe(`Hey @${ZWSP}everyone and @${ZWSP}here!`);
    expect(renderDiscordMarkdown('<@123> <@!456> <@&789>')).toBe(
      `<@${ZWSP}123> <@${ZWSP}!456> <@${ZWSP}&789>`,
    );
  });

  it('leaves look-alikes and Markdown intact', () => {
    const text = '**bold** _it_ ~~s~~ [x](https://e.com) mail@hereford.uk <#123>';
    expect(renderDiscordMarkdown(text)).toBe(text);
  });

  it('does not touch code spans or fenced code', () => {
    const text = 'say `@everyone` then\n```\n@here <@1>\n```\nbut @here';
    expect(renderDiscordMarkdown(text)).toBe(
      `say \`@everyone\` then\n\`\`\`\n@here <@1>\n\`\`\`\nbut @${ZWSP}here`,
    );
  });

  it('defuses text after an unmatched backtick', () => {
    expect(renderDiscordMarkdown('a ` b @everyone')).toBe(`a \` b @${ZWSP}everyone`);
  });

  it('no mention syntax survives outside code', () => {
    const rendered = renderDiscordMarkdown('@everyone@here<@1><@&2><@!3> @@everyone');
    expect(rendered).not.toMatch(/@(everyone|here)|<@[!&]?\d+>/);
  });
});
