import { describe, expect, it } from 'vitest';
import type { ChannelLinkView, ChannelView } from './channel-status.ts';
import { accountLabel, summarizeChannel } from './channel-summary.ts';

const updatedAt = '2026-01-01T00:00:00.000Z';
const whatsapp = (link: Omit<ChannelLinkView, 'updatedAt'>): ChannelView => ({
  name: 'whatsapp',
  health: { status: 'connecting' },
  link: { ...link, updatedAt },
});

describe('summarizeChannel', () => {
  it('names the linked account by its phone number', () => {
    expect(
      summarizeChannel(
        whatsapp({ status: 'open', account: { phoneJid: '15550000001@s.whatsapp.net', lidJid: '2100@lid' } }),
      ),
    ).toEqual({ tone: 'ok', headline: 'Linked as +15550000001' });
    expect(accountLabel({ phoneJid: '15550000001:7@s.whatsapp.net' })).toBe('+15550000001');
    expect(accountLabel({ lidJid: '210000000001@lid' })).toBe('210000000001');
  });

  it('tells where to scan a QR, or where to type a pairing code', () => {
    expect(summarizeChannel(whatsapp({ status: 'awaiting_link', qr: '2@x' })).advice).toMatch(
      /Linked devices → Link a device, and scan this code/,
    );
    expect(summarizeChannel(whatsapp({ status: 'awaiting_link', pairingCode: 'ABCD1234' })).advice).toMatch(
      /Link with phone number instead, and enter this code/,
    );
  });

  it.each([
    ['logged_out', /logged this device out.*Link again/],
    ['forbidden', /refused this account/],
    ['multidevice_mismatch', /linked again/],
    ['something_new', /ended the link/],
  ])('needs relink (%s): says why and offers Link again', (detail, advice) => {
    const summary = summarizeChannel(whatsapp({ status: 'needs_relink', detail }));
    expect(summary).toMatchObject({
      tone: 'problem',
      headline: 'Needs relink',
      action: { label: 'Link again', kind: 'relink' },
    });
    expect(summary.advice).toMatch(advice);
  });

  it('a replaced session is not retried on its own: it offers Reconnect', () => {
    expect(summarizeChannel(whatsapp({ status: 'replaced', detail: 'connection_replaced' }))).toMatchObject({
      tone: 'problem',
      action: { label: 'Reconnect' },
    });
  });

  it('counts down to the next reconnect attempt', () => {
    expect(summarizeChannel(whatsapp({ status: 'reconnecting', nextAttemptInMs: 4_200 })).headline).toBe(
      'Connection lost; trying again in 5 s',
    );
  });

  it('shows the health of channels without a link', () => {
    expect(summarizeChannel({ name: 'web', health: { status: 'up', detail: '1 connection' } })).toEqual({
      tone: 'ok',
      headline: 'Connected',
    });
    expect(
      summarizeChannel({ name: 'telegram', health: { status: 'down', detail: 'token rejected' } }),
    ).toEqual({ tone: 'problem', headline: 'Down: token rejected' });
  });
});
