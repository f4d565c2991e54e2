import type { ConversationList, ImportOutcome } from '@nexus/core';
import { MAX_INTENT_TEXT_CHARS } from '@nexus/protocol';
import { z } from 'zod';
import { MAX_CONVERSATION_TITLE_CHARS } from '../web/web-conversation-events.ts';

/** Conversations one import request may carry; the web client sends more in several requests. */
export const MAX_IMPORTED_CONVERSATIONS = 20;
/** Exchanges kept per imported conversation: the newest (the web client keeps 300 messages). */
export const MAX_IMPORTED_EXCHANGES = 300;
/** Largest import body: 20 long conversations with room to spare, far below memory concerns. */
export const MAX_IMPORT_BODY_BYTES = 8 * 1024 * 1024;

const time = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const text = z.string().max(MAX_INTENT_TEXT_CHARS);
/** A model's answer may be far longer than a message; still bounded. */
const replyText = z.string().max(200_000);

export const importRequestSchema = z.object({
  conversations: z
    .array(
      z.object({
        conversationId: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/),
        title: z.string().trim().min(1).max(200),
        renamed: z.boolean().default(false),
        createdAt: time,
        updatedAt: time,
        exchanges: z
          .array(
            z.object({
              clientMessageId: z.string().min(1).max(128),
              text,
              replyText,
              createdAt: time,
            }),
          )
          .max(MAX_IMPORTED_EXCHANGES),
      }),
    )
    .max(MAX_IMPORTED_CONVERSATIONS),
});
export type ImportRequest = z.infer<typeof importRequestSchema>;

/**
 * Carries the conversations a browser held before the list lived on the gateway into its person's
 * list; each answers `imported`, `present` (done before: nothing changes), `deleted` (deleted on
 * another device: it stays deleted) or `foreign` (another person's id). Messages are stored under
 * the intent ids the browser's own messages had (`<channel>:<clientId>:<clientMessageId>`), so a
 * second run, or a message the gateway already answered, is never stored twice.
 */
export async function importConversations(options: {
  list: ConversationList;
  channel: string;
  clientId: string;
  userId: string;
  request: ImportRequest;
}): Promise<{ conversationId: string; outcome: ImportOutcome }[]> {
  const { list, channel, clientId, userId } = options;
  const results: { conversationId: string; outcome: ImportOutcome }[] = [];
  for (const conversation of options.request.conversations) {
    const outcome = await list.importConversation({
      channel,
      owner: clientId,
      userId,
      conversationId: conversation.conversationId,
      title: conversation.title.replace(/\s+/g, ' ').slice(0, MAX_CONVERSATION_TITLE_CHARS),
      renamed: conversation.renamed,
      createdAt: conversation.createdAt,
      updatedAt: Math.max(conversation.createdAt, conversation.updatedAt),
      exchanges: conversation.exchanges.map((exchange) => ({
        intentId: `${channel}:${clientId}:${exchange.clientMessageId}`,
        userText: exchange.text,
        replyText: exchange.replyText,
        createdAt: exchange.createdAt,
      })),
    });
    results.push({ conversationId: conversation.conversationId, outcome });
  }
  return results;
}
