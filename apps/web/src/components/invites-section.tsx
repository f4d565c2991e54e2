import { useCallback, useEffect, useState } from 'preact/hooks';
import type { AdminApiOptions } from '../admin-api.ts';
import { createInvite, listInvites, revokeInvite, type WebInviteView } from '../web-invites.ts';
import { CopyButton } from './copy-button.tsx';

/**
 * Part of the Access panel: links that let someone else use the web chat as their own person
 * (their own memory and conversations), one per person, named, listed and revocable.
 */
export function InvitesSection({ api }: { api: AdminApiOptions }) {
  const [invites, setInvites] = useState<WebInviteView[]>();
  const [problem, setProblem] = useState<string>();
  const [name, setName] = useState('');
  const [made, setMade] = useState<{ name: string; link: string }>();
  const [busy, setBusy] = useState(false);

  const refresh = useCallback(async () => {
    try {
      setInvites(await listInvites(api));
      setProblem(undefined);
    } catch (error) {
      setProblem((error as Error).message);
    }
  }, [api]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const act = async (action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
      setProblem(undefined);
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusy(false);
      await refresh();
    }
  };

  return (
    <section class="pairing-panel invites" aria-label="Invite links" data-testid="invites">
      <header class="pairing-panel-header">
        <h3>Invite links</h3>
      </header>
      <form
        class="invite-form"
        onSubmit={(event) => {
          event.preventDefault();
          const trimmed = name.trim();
          if (trimmed === '') return;
          void act(async () => {
            const origin = new URL(api.url.replace(/^ws(s?):/, 'http$1:')).origin;
            const { link } = await createInvite({ ...api, name: trimmed, origin });
            setMade({ name: trimmed, link });
            setName('');
          });
        }}
      >
        <label for="invite-name">Who is it for?</label>
        <div class="invite-form-row">
          <input
            id="invite-name"
            data-testid="invite-name"
            maxLength={80}
            autocomplete="off"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
          <button type="submit" data-testid="invite-create" disabled={busy || name.trim() === ''}>
            Create link
          </button>
        </div>
      </form>
      {made !== undefined && (
        <div class="invite-made" data-testid="invite-made">
          <p>
            Send this link to {made.name}. It is shown only now; whoever opens it chats as {made.name}.
          </p>
          <div class="invite-link-row">
            <code class="invite-link" data-testid="invite-link">
              {made.link}
            </code>
            <CopyButton text={() => made.link} label="Copy link" />
          </div>
        </div>
      )}
      {problem !== undefined && (
        <p class="pairing-problem" role="alert">
          {problem}
        </p>
      )}
      {invites !== undefined && invites.length === 0 && (
        <p class="pairing-empty">No invite links yet. Each one lets one more person use this assistant.</p>
      )}
      {invites !== undefined && invites.length > 0 && (
        <ul class="pairing-list">
          {invites.map((invite) => (
            <li
              key={invite.inviteId}
              class="pairing-request"
              data-testid="invite"
              data-revoked={invite.revoked}
            >
              <div class="pairing-who">
                <strong>{invite.name}</strong>
                <span class="pairing-meta">
                  {invite.revoked ? 'revoked' : 'active'} · made{' '}
                  {new Date(invite.createdAt).toLocaleDateString()}
                </span>
              </div>
              {!invite.revoked && (
                <div class="pairing-actions">
                  <button
                    type="button"
                    class="secondary"
                    data-testid="invite-revoke"
                    disabled={busy}
                    onClick={() => void act(() => revokeInvite({ ...api, inviteId: invite.inviteId }))}
                  >
                    Revoke
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
