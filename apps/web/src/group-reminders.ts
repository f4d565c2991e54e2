import { type AdminApiOptions, callAdminApi } from './admin-api.ts';

/** A reminder waiting in a group, as the gateway's `/api/reminders` lists it. */
export interface GroupReminderView {
  id: number;
  channel: string;
  conversationId: string;
  /** The person who set it (their id) and, when the channel gave one, their display name. */
  setBy: string;
  setByName?: string;
  text: string;
  cron?: string;
  timeZone: string;
  nextRunAt: number;
}

/** Reminders waiting in groups, soonest first. Failures throw `AdminApiError`. */
export async function listGroupReminders(options: AdminApiOptions): Promise<GroupReminderView[]> {
  const body = (await callAdminApi(options, '/api/reminders')) as { reminders?: GroupReminderView[] };
  return body.reminders ?? [];
}

/** Cancels one group reminder, whoever set it. */
export async function cancelGroupReminder(options: AdminApiOptions & { id: number }): Promise<void> {
  await callAdminApi(options, `/api/reminders/${options.id}`, { method: 'DELETE' });
}
