import { AdminApiError, type AdminApiOptions, callAdminApi } from './admin-api.ts';

export interface WebConversationsApiOptions extends AdminApiOptions {
  clientId: string;
}

/**
 * Deletes what the gateway keeps of one of this browser's conversations: the turns in its history
 * and the events it holds for a resume. A conversation the gateway never stored counts as deleted.
 */
export async function deleteServerConversation(
  options: WebConversationsApiOptions,
  conversationId: string,
): Promise<void> {
  try {
    await callAdminApi(options, `/api/web/conversations/${encodeURIComponent(conversationId)}`, {
      method: 'DELETE',
      headers: { 'x-nexus-client': options.clientId },
    });
  } catch (error) {
    if (error instanceof AdminApiError && error.status === 404) return;
    throw error;
  }
}
