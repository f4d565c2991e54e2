import type { ChannelHealth } from '@nexus/protocol';
import { type AdminApiOptions, callAdminApi } from './admin-api.ts';

/** A phone-linked channel's link (WhatsApp), as the gateway's `/api/channels` reports it. */
export interface ChannelLinkView {
  status: 'idle' | 'connecting' | 'awaiting_link' | 'open' | 'reconnecting' | 'needs_relink' | 'replaced';
  /** Raw QR payload to draw; it never leaves this page. */
  qr?: string;
  pairingCode?: string;
  account?: { phoneJid?: string; lidJid?: string };
  lastDisconnect?: { statusCode?: number; at: string };
  nextAttemptInMs?: number;
  detail?: string;
  updatedAt: string;
}

export interface ChannelView {
  name: string;
  health: ChannelHealth;
  link?: ChannelLinkView;
}

/** Every channel of the gateway with its health; failures throw `AdminApiError`. */
export async function listChannels(options: AdminApiOptions): Promise<ChannelView[]> {
  const body = (await callAdminApi(options, '/api/channels')) as { channels?: ChannelView[] };
  return body.channels ?? [];
}

/** Starts a link WhatsApp ended (logged out, replaced) again, so a new QR code appears. */
export async function relinkChannel(options: AdminApiOptions & { name: string }): Promise<void> {
  await callAdminApi(options, `/api/channels/${encodeURIComponent(options.name)}/relink`, {
    method: 'POST',
  });
}
