import type { ConversationGenerations } from './conversation-generations.ts';
import type { SessionStore } from './session-store.ts';

/**
 * A SessionStore whose history follows the conversation's generation: after `/new`, turns are
 * read and written under `<key>#<generation>`, so the earlier ones stay stored but out of the prompt.
 */
export function withConversationGenerations(
  store: SessionStore,
  generations: ConversationGenerations,
): SessionStore {
  const keyOf = (conversationKey: string): string => {
    const generation = generations.generation(conversationKey);
    return generation === 0 ? conversationKey : `${conversationKey}#${generation}`;
  };
  return {
    hasIntent: (options) => store.hasIntent(options),
    appendTurn: (turn) => store.appendTurn({ ...turn, conversationKey: keyOf(turn.conversationKey) }),
    history: (options) => store.history({ ...options, conversationKey: keyOf(options.conversationKey) }),
    lookUpMessage: (key) => store.lookUpMessage(key),
    ...(store.replyVersion ? { replyVersion: store.replyVersion.bind(store) } : {}),
    // A found message keeps its own generation's key; only a turn answered now takes the current one.
    applyRevision: (options) =>
      store.applyRevision(
        options.change.type === 'insert'
          ? {
              ...options,
              change: {
                ...options.change,
                turn: { ...options.change.turn, conversationKey: keyOf(options.change.turn.conversationKey) },
              },
            }
          : options,
      ),
    admitIntent: (entry) => store.admitIntent(entry),
    recordReply: (options) => store.recordReply(options),
    finishIntent: (key) => store.finishIntent(key),
    countReplay: (key) => store.countReplay(key),
    unfinishedIntents: () => store.unfinishedIntents(),
    ...(store.markActive ? { markActive: store.markActive.bind(store) } : {}),
    ...(store.forgetPeople ? { forgetPeople: store.forgetPeople.bind(store) } : {}),
    // The base key: the store deletes every generation of it.
    ...(store.forgetConversation ? { forgetConversation: store.forgetConversation.bind(store) } : {}),
    close: () => store.close(),
  };
}
