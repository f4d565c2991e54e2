import { type IntentInput, intentSchema } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { passesRevisionGate } from './group-gate.ts';
import { asEditIntent, deleteIntentOf } from './revision-intent.ts';

const message: IntentInput = {
  id: '-100:42',
  channel: 'telegram',
  conversation: { id: '-100', kind: 'group', title: 'Team' },
  sender: { platformId: '7', displayName: 'Ada' },
  userId: 'telegram:7',
  text: 'new text',
  attachments: [],
  mentionsAssistant: false,
  receivedAt: new Date(0).toISOString(),
};

describe('revision intents', () => {
  it('an edit keeps the content and revises the original id, one id per version', () => {
    const edit = intentSchema.parse(asEditIntent(message, 1700000000));
    expect(edit).toMatchObject({
      id: '-100:42:edit:1700000000',
      text: 'new text',
      revises: { kind: 'edit', targetIntentId: '-100:42' },
    });
    expect(asEditIntent(message, 1700000001).id).not.toBe(edit.id);
  });

  it('a delete is empty, valid, and has one id', () => {
    const removal = intentSchema.parse(
      deleteIntentOf({
        targetIntentId: '-100:42',
        channel: 'telegram',
        conversation: message.conversation,
        sender: message.sender,
        userId: message.userId,
        receivedAt: new Date(0),
      }),
    );
    expect(removal).toMatchObject({
      id: '-100:42:delete',
      text: '',
      attachments: [],
      mentionsAssistant: false,
      revises: { kind: 'delete', targetIntentId: '-100:42' },
    });
  });

  it('the revision gate passes an unaddressed group revision only when its target was taken', () => {
    const edit = asEditIntent(message, 1);
    expect(passesRevisionGate(edit, 'mentioned', false)).toBe(false);
    expect(passesRevisionGate(edit, 'mentioned', true)).toBe(true);
    expect(passesRevisionGate(edit, 'all', false)).toBe(true);
    // A plain message is not let through by a "taken target".
    expect(passesRevisionGate(message, 'mentioned', true)).toBe(false);
  });
});
