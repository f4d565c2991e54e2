import { describe, expect, it } from 'vitest';
import {
  applyServerFrame,
  type ChatMessage,
  type ConversationState,
  chooseAnswer,
  regenerateAnswer,
  reviseUserMessage,
} from './conversation-state.ts';
import { visibleMessages } from './reply-versions.ts';
import { toStoredConversation } from './stored-conversation.ts';

const user = (id: string, text: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({
  id,
  role: 'user',
  text,
  state: 'sent',
  ...extra,
});
const reply = (id: string, text: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({
  id,
  role: 'assistant',
  text,
  state: 'done',
  ...extra,
});
const conversation = (messages: ChatMessage[]): ConversationState => ({
  conversationId: 'c',
  lastSeq: 9,
  messages,
});
const shown = (state: ConversationState) =>
  visibleMessages(state.messages).map((row) => row.shownText ?? row.message.text);

describe('versions of an answer', () => {
  it('shows the newest answer of a message with its position, and Regenerate on the newest reply only', () => {
    const rows = visibleMessages([
      user('m1', 'q1'),
      reply('r1', 'a1'),
      user('m2', 'q2'),
      reply('r2', 'a2'),
      reply('r3', 'b2'),
    ]);
    expect(rows.map((row) => row.message.text)).toEqual(['q1', 'a1', 'q2', 'b2']);
    expect(rows[3]?.versions).toEqual({ questionId: 'm2', index: 1, replyIds: ['r2', 'r3'] });
    expect(rows[1]?.versions).toBeUndefined();
    expect(rows.filter((row) => row.regenerateOf !== undefined).map((row) => row.regenerateOf)).toEqual([
      'm2',
    ]);
  });

  it('shows a reply that answers nothing (a reminder) on its own, not as a version, and offers no Regenerate on it', () => {
    const rows = visibleMessages([
      user('m1', 'q1'),
      reply('r1', 'a1'),
      reply('reminder', 'Water the plants', { unprompted: true }),
    ]);
    expect(rows.map((row) => row.message.id)).toEqual(['m1', 'r1', 'reminder']);
    expect(rows.every((row) => row.versions === undefined)).toBe(true);
    expect(rows.map((row) => row.regenerateOf)).toEqual([undefined, undefined, undefined]);
  });

  it('takes a reply.start frame marked unprompted as a message of its own, and keeps the mark in storage', () => {
    let state = conversation([user('m1', 'q1'), reply('r1', 'a1')]);
    for (const [seq, event] of [
      [10, { type: 'reply.start', replyId: 'reminder' }],
      [11, { type: 'reply.end', replyId: 'reminder', text: 'Water the plants' }],
    ] as const)
      state = applyServerFrame(state, {
        type: 'event',
        conversationId: 'c',
        seq,
        event,
        ...(event.type === 'reply.start' ? { unprompted: true as const } : {}),
      });
    expect(shown(state)).toEqual(['q1', 'a1', 'Water the plants']);
    expect(toStoredConversation(JSON.parse(JSON.stringify(state)))?.messages.at(-1)).toMatchObject({
      id: 'reminder',
      unprompted: true,
    });
  });

  it('pages back to a chosen version, and a regenerate shows the answer to come again', () => {
    let state = conversation([user('m1', 'q'), reply('r1', 'first'), reply('r2', 'second')]);
    state = chooseAnswer(state, 'm1', 'r1');
    expect(shown(state)).toEqual(['q', 'first']);
    expect(visibleMessages(state.messages)[1]?.versions?.index).toBe(0);
    state = regenerateAnswer(state, 'm1');
    expect(shown(state)).toEqual(['q', 'second']);
  });

  it('an edited message pages with the words each version answered', () => {
    let state = conversation([user('m1', 'cats?'), reply('r1', 'about cats')]);
    state = reviseUserMessage(state, { targetClientMessageId: 'm1', kind: 'edit', text: 'dogs?' });
    state = { ...state, messages: [...state.messages, reply('r2', 'about dogs')] };
    expect(shown(state)).toEqual(['dogs?', 'about dogs']);
    state = chooseAnswer(state, 'm1', 'r1');
    expect(shown(state)).toEqual(['cats?', 'about cats']);
  });

  it('offers Try again on an error of the newest message, and clears the error when asked', () => {
    let state = conversation([
      user('m1', 'q'),
      { id: 'error-3', role: 'error', text: 'The model is unavailable', state: 'done' },
    ]);
    expect(visibleMessages(state.messages)[1]?.retryOf).toBe('m1');
    state = regenerateAnswer(state, 'm1');
    expect(state.messages.map((message) => message.id)).toEqual(['m1']);
    expect(
      visibleMessages([
        user('m1', 'q'),
        { id: 'e', role: 'error', text: 'x', state: 'done' },
        user('m2', 'q2'),
      ])[1]?.retryOf,
    ).toBeUndefined();
  });

  it('offers no Regenerate while the reply streams or for a message not taken yet', () => {
    expect(
      visibleMessages([user('m1', 'q'), reply('r1', 'a', { state: 'streaming' })]).some(
        (row) => row.regenerateOf,
      ),
    ).toBe(false);
    expect(
      visibleMessages([user('m1', 'q', { state: 'pending' }), reply('r1', 'a')]).some(
        (row) => row.regenerateOf,
      ),
    ).toBe(false);
  });
});
