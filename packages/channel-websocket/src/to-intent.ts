import type { ClientFrame, IntentInput } from '@nexus/protocol';

export interface BuildWebIntentOptions {
  channelName: string;
  clientId: string;
  displayName?: string;
  frame: Extract<ClientFrame, { type: 'message' }>;
  receivedAt: Date;
}

/**
 * The Intent for one web `message` frame. The id is derived from the client's idempotency key,
 * so a frame re-sent after a reconnect is recognised by core as the same message.
 */
export function buildWebIntent(options: BuildWebIntentOptions): IntentInput {
  const { channelName, clientId, displayName, frame } = options;
  return {
    id: `${channelName}:${clientId}:${frame.clientMessageId}`,
    channel: channelName,
    conversation: { id: frame.conversationId, kind: 'direct' },
    sender: { platformId: clientId, ...(displayName === undefined ? {} : { displayName }) },
    userId: `${channelName}:${clientId}`,
    text: frame.text,
    attachments: [],
    mentionsAssistant: true,
    receivedAt: options.receivedAt.toISOString(),
  };
}
