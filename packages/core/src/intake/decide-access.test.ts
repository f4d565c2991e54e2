import { intentSchema } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import type { AccessDecision } from '../access/access-decision.ts';
import { createSqliteSessionStore } from '../session-store/sqlite-session-store.ts';
import { createRecordingLogger, testIntent } from '../testing/recording-channel.ts';
import { type AccessStep, decideAccess } from './decide-access.ts';
import { inboxEntryOf, writeInbox } from './write-inbox.ts';

const message = intentSchema.parse(testIntent({ id: 'm1', text: 'first words' }));
const edit = intentSchema.parse({
  ...testIntent({ id: 'm1-edit', text: 'second words' }),
  revises: { kind: 'edit', targetIntentId: 'm1' },
});

/** An access step whose check records what it was asked and answers with `answer`. */
function accessStep(answer: (text: string) => AccessDecision) {
  const checked: { text: string; revises: boolean }[] = [];
  const step: AccessStep = {
    check: async (intent) => {
      checked.push({ text: intent.text, revises: intent.revises !== undefined });
      return answer(intent.text);
    },
    sessionStore: createSqliteSessionStore({ path: ':memory:' }),
    logger: createRecordingLogger(),
  };
  return { step, checked };
}

describe('decideAccess (the access step of intake)', () => {
  it('turns a refusal into the intake result and a silent drop into accepted', async () => {
    const refused = accessStep(() => ({ action: 'reject', code: 'unauthorized', message: 'no' }));
    expect(await decideAccess(message, refused.step)).toEqual({
      status: 'rejected',
      code: 'unauthorized',
      message: 'no',
    });
    const dropped = accessStep(() => ({
      action: 'ignore',
      reason: 'a group message not meant for the assistant',
    }));
    expect(await decideAccess(message, dropped.step)).toEqual({ status: 'accepted' });
  });

  it('checks an edit of a message it has seen under the revision rules, with `revises` kept', async () => {
    const { step, checked } = accessStep(() => ({ action: 'turn', intent: edit }));
    const written = await writeInbox(
      inboxEntryOf(message, { action: 'turn', intent: message }, 'test:conversation-1', 1),
      step,
    );
    expect(written).toBe('admitted');
    expect(await decideAccess(edit, step)).toEqual({ action: 'turn', intent: edit });
    expect(checked).toEqual([{ text: 'second words', revises: true }]);
  });

  it('treats an edit of a message never seen as a new message, then threads it under the original', async () => {
    const { step, checked } = accessStep(() => ({
      action: 'turn',
      intent: { ...message, text: 'second words' },
    }));
    const decision = await decideAccess(edit, step);
    expect(checked).toEqual([{ text: 'second words', revises: false }]);
    expect(decision).toMatchObject({
      action: 'turn',
      intent: { revises: { kind: 'edit', targetIntentId: 'm1' } },
    });
  });

  it('has nothing to do for a delete of a message never seen', async () => {
    const { step, checked } = accessStep(() => ({ action: 'turn', intent: message }));
    const deletion = intentSchema.parse({
      ...testIntent({ id: 'm2-delete', text: '' }),
      revises: { kind: 'delete', targetIntentId: 'm2' },
    });
    expect(await decideAccess(deletion, step)).toEqual({ status: 'accepted' });
    expect(checked).toEqual([]);
  });

  it('answers internal when the access store fails, and retryable when the inbox cannot be read', async () => {
    const { step } = accessStep(() => {
      throw new Error('access database locked');
    });
    expect(await decideAccess(message, step)).toMatchObject({ status: 'rejected', code: 'internal' });
    const closed = createSqliteSessionStore({ path: ':memory:' });
    await closed.close();
    expect(await decideAccess(edit, { ...step, sessionStore: closed })).toMatchObject({
      status: 'rejected',
      code: 'internal',
      retryable: true,
    });
  });

  it('lets every intent through as a turn when no access control is configured', async () => {
    const step: AccessStep = {
      sessionStore: createSqliteSessionStore({ path: ':memory:' }),
      logger: createRecordingLogger(),
    };
    expect(await decideAccess(message, step)).toEqual({ action: 'turn', intent: message });
  });
});
