import type { ConnectionStatus } from '../chat-connection.ts';

/**
 * Says plainly, while the gateway cannot be reached, what happens to what the person types: it
 * waits in this browser (a reload keeps it) and is sent, once, when the connection is back.
 */
export function ConnectionBanner({
  connection,
  offline,
}: {
  connection: ConnectionStatus;
  offline: boolean;
}) {
  if (!offline && connection.phase !== 'reconnecting' && connection.phase !== 'stopped') return null;
  if (connection.phase === 'open') return null;
  const waiting =
    connection.queued === 0
      ? 'Messages you send now'
      : `${connection.queued} unsent message${connection.queued === 1 ? '' : 's'}, and any you send now,`;
  return (
    <aside class="connection-banner" data-testid="connection-banner" aria-label="Connection">
      <strong>
        {offline
          ? 'You are offline.'
          : connection.phase === 'stopped'
            ? 'Disconnected.'
            : 'Connection lost, reconnecting…'}
      </strong>{' '}
      {waiting} will wait in this browser, even across a reload, and be sent once the connection is back.
    </aside>
  );
}
