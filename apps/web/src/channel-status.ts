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

/** An MCP tool server as `/api/channels` reports it beside the channels. */
export interface ToolServerView {
  name: string;
  transport: 'stdio' | 'http';
  state: 'connecting' | 'connected' | 'down' | 'closed';
  tools: string[];
  lastError?: string;
  failedAttempts: number;
}

/** Every channel with its health and the MCP tool servers, in one request; failures throw `AdminApiError`. */
export async function readChannelsApi(
  options: AdminApiOptions,
): Promise<{ channels: ChannelView[]; toolServers: ToolServerView[] }> {
  const body = (await callAdminApi(options, '/api/channels')) as {
    channels?: ChannelView[];
    toolServers?: ToolServerView[];
  };
  return { channels: body.channels ?? [], toolServers: body.toolServers ?? [] };
}

/** One line for a tool server: its state in words, and how many tools it offers. */
export function summarizeToolServer(server: ToolServerView): {
  tone: 'ok' | 'waiting' | 'problem';
  headline: string;
} {
  if (server.state === 'connected') {
    return {
      tone: 'ok',
      headline: `connected, ${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}`,
    };
  }
  if (server.state === 'connecting') return { tone: 'waiting', headline: 'connecting' };
  return {
    tone: 'problem',
    headline: `down${server.lastError ? `: ${server.lastError}` : ''} (retrying)`,
  };
}

/** Starts a link WhatsApp ended (logged out, replaced) again, so a new QR code appears. */
export async function relinkChannel(options: AdminApiOptions & { name: string }): Promise<void> {
  await callAdminApi(options, `/api/channels/${encodeURIComponent(options.name)}/relink`, {
    method: 'POST',
  });
}
