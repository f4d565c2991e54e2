import type { ReplyEvent, ServerFrame } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import {
  addUserMessage,
  applyServerFrame,
  type ConversationState,
  emptyConversation,
  markPending,
  reviseUserMessage,
  TYPING_ACTIVITY,
} from './conversation-state.ts';
import { toStoredConversation } from './stored-conversation.ts';

const event = (seq: number, replyEvent: ReplyEvent, conversationId = 'c1'): ServerFrame => ({
  type: 'event',
  conversationId,
  seq,
  event: replyEvent,
});

function applyAll(state: ConversationState, frames: ServerFrame[]): ConversationState {
  return frames.reduce(applyServerFrame, state);
}

describe('conversation state', () => {
  it('streams a reply: deltas append, reply.end replaces with the full text', () => {
    let state = addUserMessage(emptyConversation('c1'), { clientMessageId: 'm1', text: 'hi' });
    state = applyServerFrame(state, {
      type: 'accepted',
      clientMessageId: 'm1',
      conversationId: 'c1',
      duplicate: false,
    });
    state = applyAll(state, [
      event(1, { type: 'typing' }),
      event(2, { type: 'reply.start', replyId: 'r1' }),
      event(3, { type: 'reply.delta', replyId: 'r1', text: 'Hel' }),
    ]);
    expect(state.messages[1]).toEqual({ id: 'r1', role: 'assistant', text: 'Hel', state: 'streaming' });
    state = applyAll(state, [
      event(4, { type: 'reply.delta', replyId: 'r1', text: 'lo' }),
      event(5, { type: 'reply.end', replyId: 'r1', text: 'Hello!' }),
    ]);
    expect(state.messages).toEqual([
      { id: 'm1', role: 'user', text: 'hi', state: 'sent' },
      { id: 'r1', role: 'assistant', text: 'Hello!', state: 'done' },
    ]);
    expect(state.lastSeq).toBe(5);
    expect(state.activity).toBeUndefined();
  });

  it('ignores events at or below the last seq, so a resume replay does not repeat text', () => {
    const frames = [
      event(1, { type: 'reply.start', replyId: 'r1' }),
      event(2, { type: 'reply.delta', replyId: 'r1', text: 'one ' }),
    ];
    const once = applyAll(emptyConversation('c1'), frames);
    const replayed = applyAll(once, [
      ...frames,
      event(3, { type: 'reply.delta', replyId: 'r1', text: 'two' }),
    ]);
    expect(replayed.messages).toEqual([{ id: 'r1', role: 'assistant', text: 'one two', state: 'streaming' }]);
    expect(applyServerFrame(once, frames[1]!)).toBe(once);
  });

  it('ignores events of another conversation', () => {
    const state = emptyConversation('c1');
    expect(applyServerFrame(state, event(1, { type: 'reply.start', replyId: 'r1' }, 'c2'))).toBe(state);
  });

  it('builds the reply from reply.end alone when the deltas were never seen', () => {
    const state = applyServerFrame(
      emptyConversation('c1'),
      event(9, { type: 'reply.end', replyId: 'r1', text: 'All' }),
    );
    expect(state.messages).toEqual([{ id: 'r1', role: 'assistant', text: 'All', state: 'done' }]);
  });

  it('shows typing and status in the activity line until the reply streams', () => {
    let state = applyServerFrame(emptyConversation('c1'), event(1, { type: 'typing' }));
    expect(state.activity).toBe(TYPING_ACTIVITY);
    state = applyServerFrame(state, event(2, { type: 'status', text: 'Restoring your preferences…' }));
    expect(state.activity).toBe('Restoring your preferences…');
    state = applyServerFrame(state, event(3, { type: 'reply.delta', replyId: 'r1', text: 'x' }));
    expect(state.activity).toBeUndefined();
  });

  it('shows a reply sent again under the same id once, with the text of the new run', () => {
    const state = applyAll(emptyConversation('c1'), [
      event(1, { type: 'reply.start', replyId: 'r1' }),
      event(2, { type: 'reply.delta', replyId: 'r1', text: 'first' }),
      event(3, { type: 'reply.end', replyId: 'r1', text: 'first run' }),
      event(10, { type: 'reply.start', replyId: 'r1' }),
      event(11, { type: 'reply.delta', replyId: 'r1', text: 'sec' }),
    ]);
    expect(state.messages).toEqual([{ id: 'r1', role: 'assistant', text: 'sec', state: 'streaming' }]);
    const ended = applyServerFrame(
      state,
      event(12, { type: 'reply.end', replyId: 'r1', text: 'second run' }),
    );
    expect(ended.messages).toEqual([{ id: 'r1', role: 'assistant', text: 'second run', state: 'done' }]);
  });

  it('adds an error event inline and ends the reply it interrupted', () => {
    const state = applyAll(emptyConversation('c1'), [
      event(1, { type: 'reply.delta', replyId: 'r1', text: 'partial' }),
      event(2, {
        type: 'error',
        code: 'model_unavailable',
        message: 'The model is not reachable.',
        retryable: true,
      }),
    ]);
    expect(state.messages).toEqual([
      { id: 'r1', role: 'assistant', text: 'partial', state: 'done' },
      { id: 'error-2', role: 'error', text: 'The model is not reachable.', state: 'done' },
    ]);
  });

  it('marks a user message failed by an error frame, and pending again for a retry', () => {
    let state = addUserMessage(emptyConversation('c1'), { clientMessageId: 'm1', text: 'hi' });
    state = applyServerFrame(state, {
      type: 'error',
      code: 'rate_limited',
      message: 'Slow down.',
      retryable: true,
      clientMessageId: 'm1',
    });
    expect(state.messages[0]).toEqual({
      id: 'm1',
      role: 'user',
      text: 'hi',
      state: 'failed',
      failure: 'Slow down.',
      retryable: true,
    });
    expect(markPending(state, 'm1').messages[0]).toEqual({
      id: 'm1',
      role: 'user',
      text: 'hi',
      state: 'pending',
    });
  });

  it('shows an error frame without a message id as an alert', () => {
    const state = applyServerFrame(emptyConversation('c1'), {
      type: 'error',
      code: 'bad_frame',
      message: 'That frame was not understood.',
      retryable: false,
    });
    expect(state.alert).toBe('That frame was not understood.');
  });

  it('follows a server whose seq restarted below ours', () => {
    const before = applyAll(emptyConversation('c1'), [
      event(40, { type: 'reply.end', replyId: 'r1', text: 'done' }),
    ]);
    const after = applyServerFrame(before, {
      type: 'resumed',
      conversationId: 'c1',
      replayed: 0,
      complete: false,
      lastSeq: 0,
    });
    expect(after.lastSeq).toBe(0);
    // Nothing was on its way, so nothing was lost: no alert.
    expect(after.alert).toBeUndefined();
    expect(
      applyServerFrame(after, event(4, { type: 'reply.end', replyId: 'r9', text: 'new' })).messages,
    ).toHaveLength(2);
  });

  it('says when a reply on its way could not be replayed, and stops showing it as streaming', () => {
    const before = applyAll(addUserMessage(emptyConversation('c1'), { clientMessageId: 'm1', text: 'hi' }), [
      event(5, { type: 'reply.delta', replyId: 'r1', text: 'partial' }),
    ]);
    const after = applyServerFrame(before, {
      type: 'resumed',
      conversationId: 'c1',
      replayed: 0,
      complete: false,
      lastSeq: 5,
    });
    expect(after.alert).toMatch(/could not be restored/);
    expect(after.messages[1]).toMatchObject({ id: 'r1', state: 'done', text: 'partial' });
  });
});

describe('a message sent from another tab or device', () => {
  it('is shown at once before what this tab has not sent yet, once, and only in its conversation', () => {
    let state = addUserMessage(emptyConversation('c1'), { clientMessageId: 'mine', text: 'typed here' });
    const sent: ServerFrame = {
      type: 'sent',
      conversationId: 'c1',
      clientMessageId: 'theirs',
      text: 'from the phone',
      attachments: [{ kind: 'image', name: 'map.png', sizeBytes: 10 }],
    };
    state = applyAll(state, [sent, sent, { ...sent, conversationId: 'c2', clientMessageId: 'elsewhere' }]);
    expect(state.messages.map((message) => [message.id, message.state])).toEqual([
      ['theirs', 'sent'],
      ['mine', 'pending'],
    ]);
    expect(state.messages[0]!.attachments).toEqual([{ kind: 'image', name: 'map.png', sizeBytes: 10 }]);
  });
});

describe('reply files and revisions', () => {
  const media = {
    kind: 'image' as const,
    mimeType: 'image/png',
    name: 'a.png',
    sizeBytes: 3,
    base64: 'AAAA',
  };

  it('attaches reply files to their reply, also when they come after reply.end, once per replay', () => {
    const frames = [
      event(1, { type: 'reply.start', replyId: 'r1' }),
      event(2, { type: 'reply.end', replyId: 'r1', text: 'Here.' }),
      event(3, { type: 'reply.media', replyId: 'r1', media }),
    ];
    const state = applyAll(applyAll(emptyConversation('c1'), frames), frames);
    expect(state.messages).toEqual([
      { id: 'r1', role: 'assistant', text: 'Here.', state: 'done', media: [media] },
    ]);
  });

  it('marks an edited message and the answers it had, and a failed change as an alert', () => {
    let state = addUserMessage(emptyConversation('c1'), { clientMessageId: 'm1', text: 'Pari' });
    state = applyAll(state, [
      { type: 'accepted', clientMessageId: 'm1', conversationId: 'c1', duplicate: false },
      event(1, { type: 'reply.end', replyId: 'r1', text: 'Pari?' }),
    ]);
    state = reviseUserMessage(state, { targetClientMessageId: 'm1', kind: 'edit', text: 'Paris' });
    expect(state.messages[0]).toMatchObject({ text: 'Paris', edited: true });
    expect(state.messages[1]).toMatchObject({ superseded: true });
    state = applyServerFrame(state, {
      type: 'error',
      code: 'invalid_intent',
      message: 'too old to edit',
      retryable: false,
      clientMessageId: 'edit-1',
    });
    expect(state.alert).toContain('too old to edit');
    expect(state.messages[0]?.state).toBe('sent');
  });

  it('shows a restart as a notice that the next reply removes, also after a reload', () => {
    const restarting = applyAll(emptyConversation('c1'), [
      event(1, { type: 'reply.delta', replyId: 'r1', text: 'Half' }),
      event(2, {
        type: 'error',
        code: 'shutting_down',
        message: 'The assistant is restarting; please send your message again in a moment.',
        retryable: true,
      }),
    ]);
    expect(restarting.messages[1]).toMatchObject({ role: 'error', restarting: true });
    const reloaded = toStoredConversation(JSON.parse(JSON.stringify(restarting)));
    expect(reloaded?.messages[1]).toMatchObject({ restarting: true });
    const answered = applyAll(reloaded!, [
      event(3, { type: 'reply.start', replyId: 'r1' }),
      event(4, { type: 'reply.end', replyId: 'r1', text: 'The whole answer.' }),
    ]);
    expect(answered.messages).toEqual([
      { id: 'r1', role: 'assistant', text: 'The whole answer.', state: 'done' },
    ]);
  });
});
