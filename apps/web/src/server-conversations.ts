import { AdminApiError, type AdminApiOptions, callAdminApi } from './admin-api.ts';
import type { ConversationSummary } from './conversation-index.ts';
import type { ChatMessage } from './conversation-state.ts';

/** One exchange of a conversation as the gateway keeps it (`GET /api/web/conversations/:id`). */
export interface ServerExchange {
  seq: number;
  clientMessageId: string;
  text: string;
  replyText: string;
  replyId?: string;
  outcome: 'ok' | 'error' | 'aborted';
  createdAt: number;
}

/** One page of a conversation's history as the gateway keeps it, oldest message first. */
export interface ServerHistoryPage {
  summary: ConversationSummary;
  messages: ChatMessage[];
  /** The gateway holds older exchanges: the seq to ask for the page before this one with. */
  earlier?: number;
}

/** A conversation a browser held, as `POST /api/web/conversations/import` takes it. */
export interface ImportedConversation {
  conversationId: string;
  title: string;
  renamed: boolean;
  createdAt: number;
  updatedAt: number;
  exchanges: { clientMessageId: string; text: string; replyText: string; createdAt: number }[];
}

export type ImportOutcome = 'imported' | 'present' | 'deleted' | 'foreign';

/** The gateway's side of the conversations list; the HTTP one below, or a stand-in in unit tests. */
export interface ServerConversations {
  list(): Promise<ConversationSummary[]>;
  /**
   * The newest page of a conversation's history, or the page before the exchange `before` (a
   * seq). Undefined when the gateway has no such conversation of this person's.
   */
  read(conversationId: string, before?: number): Promise<ServerHistoryPage | undefined>;
  rename(conversationId: string, title: string): Promise<void>;
  import(
    conversations: readonly ImportedConversation[],
  ): Promise<{ conversationId: string; outcome: ImportOutcome }[]>;
}

const path = '/api/web/conversations';

interface SummaryBody {
  conversationId: string;
  title: string;
  renamed: boolean;
  createdAt: number;
  updatedAt: number;
}

export function toSummary(body: SummaryBody): ConversationSummary {
  return {
    conversationId: body.conversationId,
    title: body.title,
    ...(body.renamed ? { renamed: true } : {}),
    createdAt: body.createdAt,
    updatedAt: body.updatedAt,
  };
}

/**
 * The messages a client shows for the gateway's exchanges: the person's message (sent) and the
 * answer history keeps (a stopped one as stopped, a failed turn as an error). Reply versions the
 * gateway kept but does not show stay on the gateway.
 */
export function toChatMessages(exchanges: readonly ServerExchange[]): ChatMessage[] {
  return exchanges.flatMap((exchange): ChatMessage[] => {
    const question: ChatMessage = {
      id: exchange.clientMessageId,
      role: 'user',
      text: exchange.text,
      state: 'sent',
    };
    if (exchange.outcome === 'error' && exchange.replyText === '')
      return [
        question,
        {
          id: `${exchange.clientMessageId}:error`,
          role: 'error',
          text: 'This message was not answered.',
          state: 'done',
        },
      ];
    return [
      question,
      {
        id: exchange.replyId ?? `${exchange.clientMessageId}:reply`,
        role: 'assistant',
        text: exchange.replyText,
        state: 'done',
        ...(exchange.outcome === 'aborted' ? { stopped: true } : {}),
      },
    ];
  });
}

/** The gateway's conversations routes, with the session cookie (or a token client's token). */
export function httpServerConversations(
  options: AdminApiOptions & { clientId: () => string },
): ServerConversations {
  const call = (suffix: string, init: RequestInit = {}) =>
    callAdminApi(options, `${path}${suffix}`, {
      ...init,
      headers: { 'x-nexus-client': options.clientId(), ...(init.headers as Record<string, string>) },
    });
  return {
    async list() {
      const body = (await call('')) as { conversations: SummaryBody[] };
      return body.conversations.map(toSummary);
    },
    async read(conversationId, before) {
      try {
        const query = before === undefined ? '' : `?before=${before}`;
        const body = (await call(`/${encodeURIComponent(conversationId)}${query}`)) as {
          conversation: SummaryBody;
          messages: ServerExchange[];
          more?: boolean;
        };
        const oldest = body.messages[0]?.seq;
        return {
          summary: toSummary(body.conversation),
          messages: toChatMessages(body.messages),
          ...(body.more === true && oldest !== undefined ? { earlier: oldest } : {}),
        };
      } catch (error) {
        if (error instanceof AdminApiError && error.status === 404) return undefined;
        throw error;
      }
    },
    async rename(conversationId, title) {
      await call(`/${encodeURIComponent(conversationId)}`, {
        method: 'PATCH',
        body: JSON.stringify({ title }),
      });
    },
    async import(conversations) {
      const body = (await call('/import', {
        method: 'POST',
        body: JSON.stringify({ conversations }),
      })) as { results: { conversationId: string; outcome: ImportOutcome }[] };
      return body.results;
    },
  };
}
