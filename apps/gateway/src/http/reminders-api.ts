import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ScheduleStore } from '@nexus/core';
import { requestPath } from '@nexus/limits-kit';
import type { Logger } from '@nexus/protocol';
import { groupReminders } from '../tools/group-reminders.ts';
import { authorized, digest, sendJson } from './pairing-api.ts';

export const REMINDERS_API_PATH = '/api/reminders';

/**
 * The owner's view of reminders set in groups, behind the gateway token like the pairing API:
 * `GET /api/reminders` lists them with who set each, `DELETE /api/reminders/<id>` cancels one.
 * A person's direct-chat reminders are theirs and stay out of it. Returns false for other paths.
 */
export function createRemindersApi(options: {
  store: Pick<ScheduleStore, 'active' | 'get' | 'cancel'>;
  token: string;
  logger: Logger;
}) {
  const expected = digest(options.token);
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const path = requestPath(request);
    if (path === undefined) return false;
    if (path !== REMINDERS_API_PATH && !path.startsWith(`${REMINDERS_API_PATH}/`)) return false;
    if (!authorized(request.headers.authorization, expected)) {
      sendJson(response, 401, {
        error: { code: 'unauthorized', message: 'Send the gateway token as a Bearer token.' },
      });
      return true;
    }
    if (path === REMINDERS_API_PATH && request.method === 'GET') {
      const reminders = groupReminders(options.store).map((schedule) => ({
        id: schedule.id,
        channel: schedule.conversation.channel,
        conversationId: schedule.conversation.conversationId,
        setBy: schedule.userId,
        ...(schedule.setByName ? { setByName: schedule.setByName } : {}),
        text: schedule.text,
        ...(schedule.cron ? { cron: schedule.cron } : {}),
        timeZone: schedule.timeZone,
        nextRunAt: schedule.nextRunAt,
      }));
      sendJson(response, 200, { reminders });
      return true;
    }
    const id = /^\/(\d{1,15})$/u.exec(path.slice(REMINDERS_API_PATH.length))?.[1];
    if (request.method !== 'DELETE' || id === undefined) {
      sendJson(response, 404, {
        error: { code: 'not_found', message: 'Use GET /api/reminders or DELETE /api/reminders/<id>.' },
      });
      return true;
    }
    const schedule = options.store.get(Number(id));
    if (!schedule || schedule.nextRunAt === undefined || schedule.conversation.kind === 'direct') {
      sendJson(response, 404, {
        error: { code: 'not_found', message: `No group reminder ${id} is waiting.` },
      });
      return true;
    }
    options.store.cancel(schedule.id);
    options.logger.info({ scheduleId: schedule.id }, 'group reminder cancelled in the web Access panel');
    sendJson(response, 200, { cancelled: schedule.id });
    return true;
  };
}
