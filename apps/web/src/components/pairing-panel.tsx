import { useCallback, useEffect, useState } from 'preact/hooks';
import {
  decidePairingRequest,
  listPairingRequests,
  type PairingRequestsOptions,
  type PairingRequestView,
} from '../pairing-requests.ts';

export interface PairingPanelProps {
  api: PairingRequestsOptions;
  onClose: () => void;
}

const REFRESH_MS = 10_000;

/** The owner's view of people waiting for access on the chat channels, with approve and reject. */
export function PairingPanel({ api, onClose }: PairingPanelProps) {
  const [requests, setRequests] = useState<PairingRequestView[]>();
  const [problem, setProblem] = useState<string>();
  const [busyCode, setBusyCode] = useState<string>();

  const refresh = useCallback(async () => {
    try {
      setRequests(await listPairingRequests(api));
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

  const decide = async (code: string, decision: 'approve' | 'reject') => {
    setBusyCode(code);
    try {
      await decidePairingRequest({ ...api, code, decision });
      setProblem(undefined);
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusyCode(undefined);
      await refresh();
    }
  };

  return (
    <section class="pairing-panel" aria-label="Access requests" data-testid="pairing-panel">
      <header class="pairing-panel-header">
        <h2>Access requests</h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </header>
      {problem !== undefined && (
        <p class="pairing-problem" role="alert">
          {problem}
        </p>
      )}
      {requests === undefined ? (
        <p class="pairing-empty">Loading…</p>
      ) : requests.length === 0 ? (
        <p class="pairing-empty" data-testid="pairing-empty">
          Nobody is waiting. People who write to the assistant on Telegram, Discord or WhatsApp get a code
          that shows up here.
        </p>
      ) : (
        <ul class="pairing-list">
          {requests.map((request) => (
            <li
              key={request.code}
              class="pairing-request"
              data-testid="pairing-request"
              data-code={request.code}
            >
              <div class="pairing-who">
                <strong>{request.displayName ?? request.platformId}</strong>
                <span class="pairing-meta">
                  {request.channel} · {request.platformId} · code <code>{request.code}</code>
                </span>
              </div>
              <div class="pairing-actions">
                <button
                  type="button"
                  data-testid="pairing-approve"
                  disabled={busyCode !== undefined}
                  onClick={() => void decide(request.code, 'approve')}
                >
                  Approve
                </button>
                <button
                  type="button"
                  class="secondary"
                  data-testid="pairing-reject"
                  disabled={busyCode !== undefined}
                  onClick={() => void decide(request.code, 'reject')}
                >
                  Reject
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
