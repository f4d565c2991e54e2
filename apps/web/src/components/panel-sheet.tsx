import { useEffect, useRef } from 'preact/hooks';
import type { PairingRequestsOptions } from '../pairing-requests.ts';
import type { PersonMemoryOptions } from '../person-memory.ts';
import { ChannelsPanel } from './channels-panel.tsx';
import { GroupRemindersSection } from './group-reminders-section.tsx';
import type { PanelName } from './header-menu.tsx';
import { InvitesSection } from './invites-section.tsx';
import { MemoryPanel } from './memory-panel.tsx';
import { PairingPanel } from './pairing-panel.tsx';

export interface PanelSheetProps {
  panel: PanelName;
  onClose: () => void;
  pairingApi?: PairingRequestsOptions;
  memoryApi?: PersonMemoryOptions;
}

/**
 * An open panel: on a phone a sheet over the lower part of the screen with the chat dimmed behind
 * it (tap outside or Escape closes it); on a wide screen a card under the header.
 */
export function PanelSheet({ panel, onClose, pairingApi, memoryApi }: PanelSheetProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Keyboard users land in the panel they opened, on its heading.
    ref.current?.querySelector<HTMLElement>('h2')?.setAttribute('tabindex', '-1');
    ref.current?.querySelector<HTMLElement>('h2')?.focus();
    const onEscapeKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onEscapeKey);
    return () => document.removeEventListener('keydown', onEscapeKey);
  }, [panel, onClose]);
  return (
    <>
      <div class="sheet-backdrop panel-backdrop" aria-hidden="true" onClick={onClose} />
      <div class="panel-sheet" data-testid="panel-sheet" ref={ref}>
        {panel === 'access' && pairingApi !== undefined && (
          <PairingPanel api={pairingApi} onClose={onClose} />
        )}
        {panel === 'access' && pairingApi !== undefined && <InvitesSection api={pairingApi} />}
        {panel === 'access' && pairingApi !== undefined && <GroupRemindersSection api={pairingApi} />}
        {panel === 'channels' && pairingApi !== undefined && (
          <ChannelsPanel api={pairingApi} onClose={onClose} />
        )}
        {panel === 'memory' && memoryApi !== undefined && <MemoryPanel api={memoryApi} onClose={onClose} />}
      </div>
    </>
  );
}
