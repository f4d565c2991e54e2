import type { ConnectionStatus } from '../chat-connection.ts';

export interface StatusLineProps {
  connection: ConnectionStatus;
  activity: string | undefined;
  alert: string | undefined;
}

export function StatusLine({ connection, activity, alert }: StatusLineProps) {
  const text = statusText(connection, activity);
  return (
    <div
      class="status-line"
      data-testid="status-line"
      data-phase={connection.phase}
      data-queued={connection.queued}
    >
      <span role="status">{text}</span>
      {alert !== undefined && (
        <span class="status-alert" role="alert">
          {alert}
        </span>
      )}
    </div>
  );
}

function statusText(connection: ConnectionStatus, activity: string | undefined): string {
  const queued =
    connection.queued > 0
      ? ` ${connection.queued} message${connection.queued === 1 ? '' : 's'} will be sent when connected.`
      : '';
  switch (connection.phase) {
    case 'connecting':
      return `Connecting…${queued}`;
    case 'reconnecting':
      return `Reconnecting…${queued}`;
    case 'unauthorized':
      return 'The token was not accepted.';
    case 'stopped':
      return 'Disconnected.';
    case 'open':
      return activity ?? '';
  }
}
