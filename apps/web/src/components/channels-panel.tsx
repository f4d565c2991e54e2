import { useCallback, useEffect, useState } from 'preact/hooks';
import type { AdminApiOptions } from '../admin-api.ts';
import {
  type ChannelView,
  readChannelsApi,
  relinkChannel,
  summarizeToolServer,
  type ToolServerView,
} from '../channel-status.ts';
import { summarizeChannel } from '../channel-summary.ts';
import { QrCode } from './qr-code.tsx';

export interface ChannelsPanelProps {
  api: AdminApiOptions;
  onClose: () => void;
}

/** Often enough to follow a QR code that rotates about every 20 s and to see the link open. */
const REFRESH_MS = 2_000;

/** The owner's view of every chat channel, and where a phone links WhatsApp by QR or code. */
export function ChannelsPanel({ api, onClose }: ChannelsPanelProps) {
  const [channels, setChannels] = useState<ChannelView[]>();
  const [toolServers, setToolServers] = useState<ToolServerView[]>([]);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState<string>();

  const refresh = useCallback(async () => {
    try {
      const read = await readChannelsApi(api);
      setChannels(read.channels);
      setToolServers(read.toolServers);
      setProblem(undefined);
    } catch (error) {
      setProblem((error as Error).message);
    }
  }, [api]);

  useEffect(() => {
    // A chain of timeouts, not an interval: a slow answer never piles requests up.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let open = true;
    const tick = async () => {
      await refresh();
      if (open) timer = setTimeout(() => void tick(), REFRESH_MS);
    };
    void tick();
    return () => {
      open = false;
      clearTimeout(timer);
    };
  }, [refresh]);

  const relink = async (name: string) => {
    setBusy(name);
    try {
      await relinkChannel({ ...api, name });
      setProblem(undefined);
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusy(undefined);
      await refresh();
    }
  };

  return (
    <section class="channels-panel" aria-label="Channels" data-testid="channels-panel">
      <header class="channels-panel-header">
        <h2>Channels</h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </header>
      {problem !== undefined && (
        <p class="channels-problem" role="alert">
          {problem}
        </p>
      )}
      {channels === undefined ? (
        <p class="channels-muted">Loading…</p>
      ) : (
        <ul class="channels-list">
          {channels.map((channel) => {
            const summary = summarizeChannel(channel);
            const link = channel.link;
            return (
              <li
                key={channel.name}
                class="channel-item"
                data-testid="channel"
                data-name={channel.name}
                data-status={link?.status ?? channel.health.status}
              >
                <div class="channel-line">
                  <strong class="channel-name">{channel.name}</strong>
                  <span class={`channel-state tone-${summary.tone}`} data-testid="channel-state">
                    {summary.headline}
                  </span>
                </div>
                {summary.advice !== undefined && (
                  <p class="channels-muted" data-testid="channel-advice">
                    {summary.advice}
                  </p>
                )}
                {link?.status === 'awaiting_link' && link.pairingCode !== undefined && (
                  <p class="pairing-code" data-testid="channel-pairing-code">
                    {formatPairingCode(link.pairingCode)}
                  </p>
                )}
                {link?.status === 'awaiting_link' && link.qr !== undefined && (
                  <QrCode value={link.qr} label={`QR code to link ${channel.name}`} />
                )}
                {summary.action !== undefined && (
                  <button
                    type="button"
                    data-testid="channel-relink"
                    disabled={busy !== undefined}
                    onClick={() => void relink(channel.name)}
                  >
                    {summary.action.label}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {toolServers.length > 0 && (
        <>
          <h3>Tool servers</h3>
          <ul class="channels-list">
            {toolServers.map((server) => {
              const summary = summarizeToolServer(server);
              return (
                <li
                  key={server.name}
                  class="channel-item"
                  data-testid="tool-server"
                  data-name={server.name}
                  data-status={server.state}
                >
                  <div class="channel-line">
                    <strong class="channel-name">{server.name}</strong>
                    <span class={`channel-state tone-${summary.tone}`}>{summary.headline}</span>
                  </div>
                  {server.tools.length > 0 && <p class="channels-muted">{server.tools.join(', ')}</p>}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}

/** `ABCD1234` → `ABCD-1234`, as WhatsApp shows the boxes on the phone. */
function formatPairingCode(code: string): string {
  return code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code;
}
