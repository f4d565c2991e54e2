import type { ChannelView } from './channel-status.ts';

/** What the Channels panel says about one channel, and which button it offers. */
export interface ChannelSummary {
  tone: 'ok' | 'waiting' | 'problem' | 'off';
  headline: string;
  /** What the owner should do now, in words. */
  advice?: string;
  action?: { label: string; kind: 'relink' };
}

const LINK_A_DEVICE = 'On your phone open WhatsApp → Settings → Linked devices → Link a device';

/** Why WhatsApp ended a link (`detail` of `needs_relink`), and what brings it back. */
const relinkAdvice: Record<string, string> = {
  logged_out:
    'WhatsApp logged this device out: it was removed under Linked devices, or the phone stayed offline too long. Press Link again and scan the new code.',
  forbidden:
    'WhatsApp refused this account (403); it may be restricted. Check WhatsApp on the phone, then press Link again.',
  multidevice_mismatch:
    'WhatsApp asked for this device to be linked again. Press Link again and scan the new code.',
};

/** `15551234567:7@s.whatsapp.net` → `+15551234567`; a LID when no phone number is known. */
export function accountLabel(account: { phoneJid?: string; lidJid?: string } | undefined): string {
  const phone = account?.phoneJid?.split(/[:@]/)[0];
  if (phone) return `+${phone}`;
  return account?.lidJid?.split(/[:@]/)[0] ?? 'an unknown account';
}

/** The panel's words for a channel: the link state for WhatsApp, the health for the rest. */
export function summarizeChannel(channel: ChannelView): ChannelSummary {
  const link = channel.link;
  if (link === undefined) {
    const { status, detail } = channel.health;
    switch (status) {
      case 'up':
        return { tone: 'ok', headline: 'Connected' };
      case 'connecting':
        return { tone: 'waiting', headline: detail ? `Connecting… (${detail})` : 'Connecting…' };
      case 'down':
        return { tone: 'problem', headline: detail ? `Down: ${detail}` : 'Down' };
      case 'stopped':
        return { tone: 'off', headline: 'Stopped' };
    }
  }
  switch (link.status) {
    case 'open':
      return { tone: 'ok', headline: `Linked as ${accountLabel(link.account)}` };
    case 'awaiting_link':
      return link.pairingCode
        ? {
            tone: 'waiting',
            headline: 'Waiting to be linked',
            advice: `${LINK_A_DEVICE} → Link with phone number instead, and enter this code.`,
          }
        : {
            tone: 'waiting',
            headline: 'Waiting to be linked',
            advice: `${LINK_A_DEVICE}, and scan this code.`,
          };
    case 'connecting':
      return { tone: 'waiting', headline: 'Connecting to WhatsApp…' };
    case 'reconnecting': {
      const seconds = Math.ceil((link.nextAttemptInMs ?? 0) / 1000);
      return {
        tone: 'waiting',
        headline:
          seconds > 0 ? `Connection lost; trying again in ${seconds} s` : 'Connection lost; reconnecting…',
        ...(link.detail ? { advice: link.detail } : {}),
      };
    }
    case 'needs_relink':
      return {
        tone: 'problem',
        headline: 'Needs relink',
        advice:
          relinkAdvice[link.detail ?? ''] ??
          'WhatsApp ended the link. Press Link again and scan the new code.',
        action: { label: 'Link again', kind: 'relink' },
      };
    case 'replaced':
      return {
        tone: 'problem',
        headline: 'Replaced by another session',
        advice:
          'Another program took over this WhatsApp link (a second gateway with the same account?). Stop it, then press Reconnect.',
        action: { label: 'Reconnect', kind: 'relink' },
      };
    case 'idle':
      return { tone: 'off', headline: 'Stopped' };
  }
}
