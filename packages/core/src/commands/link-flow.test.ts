import { renderDiscordMarkdown, renderTelegramHtml, renderWhatsAppText } from '@nexus/channel-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type AccessCore, arrayMemory, startAccessCore } from '../access/testing/start-access-core.ts';

let setup: AccessCore | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

function codeIn(text: string): string {
  const code = /\*\*([A-Z0-9]{8})\*\*/.exec(text)?.[1];
  if (!code) throw new Error(`no code in: ${text}`);
  return code;
}

describe('the person who types a link code', () => {
  it('is told whose account it joins and must confirm; a code pushed on them by someone else captures nothing', async () => {
    const memory = arrayMemory([{ userId: 'test:victim', content: 'Keeps the spare key under the mat' }]);
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' }, memory });
    const { channel, store } = setup;
    // The attacker takes the victim's name and sends them "/link CODE to verify".
    await channel.send({ text: '/link', senderId: 'mallory', senderName: 'Vic Tim' });
    const code = codeIn(await channel.waitForReply('dm:mallory'));
    await channel.send({ text: 'hi', senderId: 'victim', senderName: 'Vic Tim' });
    await channel.waitForReply('dm:victim');

    await channel.send({ text: `/link ${code}`, senderId: 'victim', senderName: 'Vic Tim' });
    const question = await channel.waitForReply('dm:victim');
    expect(question).toContain('This code was made by a test account (Vic Tim, test:mallory).');
    expect(question).toMatch(/whoever uses that account sees everything I remember about you/);
    expect(question).toMatch(/send \*\*\/link confirm\*\*/);
    // The issuer is not asked anything yet, so approving there links nothing.
    expect(channel.replies('dm:mallory')).toHaveLength(1);
    await channel.send({ text: '/link approve', senderId: 'mallory' });
    expect(await channel.waitForReply('dm:mallory')).toMatch(/No link is waiting/);

    await channel.send({ text: '/link deny', senderId: 'victim' });
    expect(await channel.waitForReply('dm:victim')).toMatch(/Nothing was linked/);
    await channel.send({ text: '/link confirm', senderId: 'victim' });
    expect(await channel.waitForReply('dm:victim')).toMatch(/No link code is waiting for your confirmation/);
    expect(store.identities.find({ channel: 'test', platformId: 'victim' })?.userId).toBe('test:victim');
    await channel.send({ text: '/memories', senderId: 'mallory' });
    expect(await channel.waitForReply('dm:mallory')).toMatch(/don't remember anything/);
  });

  it('links only once the typing side confirms and the issuing side approves', async () => {
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' } });
    const { channel, store } = setup;
    const phone = { senderId: 'ann-phone', conversationId: 'phone', senderName: 'Ann P.' };
    await channel.send({ text: '/link', senderId: 'ann', senderName: 'Ann' });
    const code = codeIn(await channel.waitForReply('dm:ann'));
    await channel.send({ text: '/link', ...phone });
    await channel.waitForReply('phone');
    await channel.send({ text: `/link ${code}`, ...phone });
    expect(await channel.waitForReply('phone')).toContain('made by a test account (Ann, test:ann)');
    await channel.send({ text: '/link confirm', ...phone });
    expect(await channel.waitForReply('phone')).toMatch(/asked your test account to approve/);
    expect(await channel.waitForReply('dm:ann')).toMatch(
      /entered your link code from a test account \(Ann P\., test:ann-phone\)/,
    );
    await channel.send({ text: '/link confirm', ...phone });
    expect(await channel.waitForReply('phone')).toMatch(/You already confirmed/);
    expect(store.identities.find({ channel: 'test', platformId: 'ann-phone' })?.userId).toBe(
      'test:ann-phone',
    );
    await channel.send({ text: '/link approve', senderId: 'ann' });
    expect(await channel.waitForReply('dm:ann')).toMatch(/^Linked\./);
    expect(await channel.waitForReply('phone')).toMatch(/^Linked\./);
    expect(store.identities.find({ channel: 'test', platformId: 'ann-phone' })?.userId).toBe('test:ann');
  });

  it("shows a display name with Markdown link syntax as text on every channel's renderer", async () => {
    setup = await startAccessCore({ directMessagePolicies: { test: 'open' } });
    const { channel } = setup;
    const name = '[Support team](https://evil.example/login) *urgent*';
    await channel.send({ text: '/link', senderId: 'owner', senderName: '[Owner](https://evil.example)' });
    const code = codeIn(await channel.waitForReply('dm:owner'));
    await channel.send({ text: `/link ${code}`, senderId: 'mallory', senderName: name });
    const question = await channel.waitForReply('dm:mallory');
    await channel.send({ text: '/link confirm', senderId: 'mallory' });
    await channel.waitForReply('dm:mallory');
    const notice = await channel.waitForReply('dm:owner');

    for (const text of [notice, question]) {
      const html = renderTelegramHtml(text);
      expect(html).not.toContain('<a ');
      expect(html).not.toContain('<i>urgent</i>');
      // WhatsApp has no masked links: the renderer would show "label (url)"; the literal stays.
      expect(renderWhatsAppText(text)).toMatch(/\[(Support team|Owner)\]\(https\[:\]\/\//);
      // Discord renders Markdown itself and honours backslash escapes.
      expect(renderDiscordMarkdown(text)).toMatch(/\\\[(Support team|Owner)\\\]\\\(https\\\[:\\\]\/\//);
    }
    expect(renderTelegramHtml(notice)).toContain('[Support team](https[:]//evil[.]example/login) *urgent*');
    expect(renderWhatsAppText(notice)).toContain('[Support team](https[:]//evil[.]example/login)');
  });

  it('never lets a display name that is a URL or a host name become a link, on any renderer', async () => {
    // Telegram and WhatsApp link bare host names by themselves; Discord and the web client link
    // http(s) URLs: what reaches them must hold neither.
    const names = [
      'https://evil.example/login',
      'www.evil.example',
      'evil.example',
      'Support t.me/evil_bot',
      'mailto:help@evil.example',
      'пример.рф',
    ];
    const linkable = /[a-z][a-z\d+.-]*:\/\/|mailto:|www\.|[\p{L}\p{N}-]\.(?:example|me|рф)\b/iu;
    for (const [index, name] of names.entries()) {
      setup = await startAccessCore({ directMessagePolicies: { test: 'open' } });
      const { channel } = setup;
      await channel.send({ text: '/link', senderId: `owner${index}`, senderName: 'Owner' });
      const code = codeIn(await channel.waitForReply(`dm:owner${index}`));
      await channel.send({ text: `/link ${code}`, senderId: `mallory${index}`, senderName: name });
      await channel.waitForReply(`dm:mallory${index}`);
      await channel.send({ text: '/link confirm', senderId: `mallory${index}` });
      await channel.waitForReply(`dm:mallory${index}`);
      const notice = await channel.waitForReply(`dm:owner${index}`);
      for (const rendered of [
        renderTelegramHtml(notice),
        renderWhatsAppText(notice),
        renderDiscordMarkdown(notice).replace(/\\(.)/gu, '$1'),
      ]) {
        expect(rendered, name).not.toMatch(linkable);
        expect(rendered, name).not.toContain('<a ');
      }
      await setup.close();
      setup = undefined;
    }
  });
});
