import type { IntentInput } from '@nexus/protocol';

/**
 * The id of one edit of a message: the target's id plus the platform's edit version (an edit
 * time or counter), so a redelivered edit repeats its id and a later edit gets a new one.
 */
export function editIntentId(targetIntentId: string, version: string | number): string {
  return `${targetIntentId}:edit:${version}`;
}

/** A message is deleted once: its delete has one id, whoever reports it and however often. */
export function deleteIntentId(targetIntentId: string): string {
  return `${targetIntentId}:delete`;
}

/**
 * Turns the intent a channel built from a message's new content (with the message's own id, as
 * for the original) into an edit of that message.
 */
export function asEditIntent(message: IntentInput, version: string | number): IntentInput {
  return {
    ...message,
    id: editIntentId(message.id, version),
    revises: { kind: 'edit', targetIntentId: message.id },
  };
}

export interface DeleteIntentOptions {
  targetIntentId: string;
  channel: string;
  conversation: IntentInput['conversation'];
  /** Who deleted it when the platform says, else the author of the deleted message. */
  sender: IntentInput['sender'];
  userId: string;
  receivedAt: Date;
  raw?: unknown;
}

/**
 * A deletion of an earlier message: no text and no attachments. It never addresses the
 * assistant by itself; the group gate lets it through when its target could have been taken
 * (see `passesRevisionGate`).
 */
export function deleteIntentOf(options: DeleteIntentOptions): IntentInput {
  return {
    id: deleteIntentId(options.targetIntentId),
    channel: options.channel,
    conversation: options.conversation,
    sender: options.sender,
    userId: options.userId,
    text: '',
    attachments: [],
    revises: { kind: 'delete', targetIntentId: options.targetIntentId },
    mentionsAssistant: false,
    receivedAt: options.receivedAt.toISOString(),
    ...(options.raw === undefined ? {} : { raw: options.raw }),
  };
}
