import { useCallback, useEffect, useState } from 'preact/hooks';
import type { AdminApiOptions } from '../admin-api.ts';
import { cancelGroupReminder, type GroupReminderView, listGroupReminders } from '../group-reminders.ts';

const REFRESH_MS = 30_000;

/**
 * Part of the Access panel: the reminders members set in groups, with who set each, so the owner
 * can cancel one nobody in the group can (a member cancels only their own with /reminders).
 */
export function GroupRemindersSection({ api }: { api: AdminApiOptions }) {
  const [reminders, setReminders] = useState<GroupReminderView[]>();
  const [problem, setProblem] = useState<string>();
  const [busyId, setBusyId] = useState<number>();

  const refresh = useCallback(async () => {
    try {
      setReminders(await listGroupReminders(api));
      setProblem(undefined);
    } catch (error) {
      setProblem((error as Error).message);
    }
  }, [api]);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  const cancel = async (id: number) => {
    setBusyId(id);
    try {
      await cancelGroupReminder({ ...api, id });
      setProblem(undefined);
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusyId(undefined);
      await refresh();
    }
  };

  return (
    <section class="pairing-panel group-reminders" aria-label="Group reminders" data-testid="group-reminders">
      <header class="pairing-panel-header">
        <h3>Group reminders</h3>
      </header>
      {problem !== undefined && (
        <p class="pairing-problem" role="alert">
          {problem}
        </p>
      )}
      {reminders === undefined ? (
        <p class="pairing-empty">Loading…</p>
      ) : reminders.length === 0 ? (
        <p class="pairing-empty" data-testid="group-reminders-empty">
          No reminders are waiting in any group.
        </p>
      ) : (
        <ul class="pairing-list">
          {reminders.map((reminder) => (
            <li key={reminder.id} class="pairing-request" data-testid="group-reminder" data-id={reminder.id}>
              <div class="pairing-who">
                <strong>{reminder.text}</strong>
                <span class="pairing-meta">
                  {reminder.channel} · {reminder.conversationId} · set by{' '}
                  {reminder.setByName ? `${reminder.setByName} (${reminder.setBy})` : reminder.setBy} · next{' '}
                  {new Date(reminder.nextRunAt).toLocaleString()}
                  {reminder.cron ? ` · repeats ${reminder.cron} (${reminder.timeZone})` : ''}
                </span>
              </div>
              <div class="pairing-actions">
                <button
                  type="button"
                  class="secondary"
                  data-testid="group-reminder-cancel"
                  disabled={busyId !== undefined}
                  onClick={() => void cancel(reminder.id)}
                >
                  Cancel
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
