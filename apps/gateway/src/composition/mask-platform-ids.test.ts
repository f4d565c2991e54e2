import { describe, expect, it } from 'vitest';
import { platformIdMasker } from './mask-platform-ids.ts';

const masker = platformIdMasker((value) => `<${String(value)}>`, new Set(['chatId']));

describe('platformIdMasker', () => {
  it('masks ids by value at any depth, whatever the field is called', () => {
    expect(
      masker.mask({
        jobId: 'whatsapp:15557654321@s.whatsapp.net/3EB0C4',
        deep: { by: ['discord:1187654321098765432', { claimer: 'telegram:7770005678' }] },
        target: '15557654321@s.whatsapp.net/3EB0C4',
        from: 'summary of telegram:-1009998887776:15 done',
        group: '120363111122223333-1600000000@g.us',
        intent: '7770001234:15',
        chatId: 7770001234,
      }),
    ).toEqual({
      jobId: '<whatsapp:15557654321@s.whatsapp.net/3EB0C4>',
      deep: { by: ['<discord:1187654321098765432>', { claimer: '<telegram:7770005678>' }] },
      target: '<15557654321@s.whatsapp.net/3EB0C4>',
      from: 'summary of <telegram:-1009998887776:15> done',
      group: '<120363111122223333-1600000000@g.us>',
      intent: '<7770001234:15>',
      chatId: '<7770001234>',
    });
  });

  it('leaves words, sizes, times and pseudonyms as they are', () => {
    const line = {
      msg: 'whatsapp: link open',
      bytes: 20_971_520,
      note: 'refused 20971520 bytes at 2026-11-25T09:00:00Z',
      component: 'web',
      userId: 'id:0123456789abcdef',
      error: new Error('telegram:7770001234'),
    };
    const masked = masker.mask(line) as typeof line;
    expect({ ...masked, error: undefined }).toEqual({ ...line, error: undefined });
    // Errors are masked by the `err` serializer, after pino's own serialisation.
    expect(masked.error).toBe(line.error);
    expect(masker.maskText('link denied for web:browser-7 and 15557654321@lid')).toBe(
      'link denied for <web:browser-7> and <15557654321@lid>',
    );
  });
});
