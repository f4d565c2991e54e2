import { useEffect, useRef } from 'preact/hooks';
import { THEME_CHOICES, type ThemeChoice } from '../theme.ts';

export type PanelName = 'access' | 'channels' | 'memory';

export interface HeaderMenuProps {
  panels: readonly PanelName[];
  openPanel: PanelName | undefined;
  onPanel: (panel: PanelName) => void;
  theme: ThemeChoice;
  onTheme: (theme: ThemeChoice) => void;
  /** Ends this browser's session on the gateway; absent where there is no sign-in. */
  onSignOut?: () => void;
  onClose: () => void;
}

const panelLabels: Record<PanelName, string> = { memory: 'Memory', access: 'Access', channels: 'Channels' };
const themeLabels: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** The header's overflow: the panels and the colour scheme, so the header stays one row on a phone. */
export function HeaderMenu({
  panels,
  openPanel,
  onPanel,
  theme,
  onTheme,
  onSignOut,
  onClose,
}: HeaderMenuProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.querySelector('button')?.focus();
    const outside = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!ref.current?.contains(target) && !(target as Element).closest?.('[data-testid=more-button]'))
        onClose();
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, [onClose]);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape is a shortcut; the menu button closes it too.
    <div
      ref={ref}
      class="header-menu"
      id="header-menu"
      data-testid="header-menu"
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
    >
      {panels.map((panel) => (
        <button
          key={panel}
          type="button"
          class="header-menu-item"
          data-testid={panel === 'access' ? 'pairing-button' : `${panel}-button`}
          aria-pressed={openPanel === panel}
          onClick={() => onPanel(panel)}
        >
          {panelLabels[panel]}
        </button>
      ))}
      <fieldset class="theme-switch">
        <legend>Appearance</legend>
        {THEME_CHOICES.map((choice) => (
          <label key={choice}>
            <input
              type="radio"
              name="theme"
              value={choice}
              data-testid={`theme-${choice}`}
              checked={theme === choice}
              onChange={() => onTheme(choice)}
            />
            {themeLabels[choice]}
          </label>
        ))}
      </fieldset>
      {onSignOut && (
        <button
          type="button"
          class="header-menu-item sign-out"
          data-testid="sign-out-button"
          onClick={onSignOut}
        >
          Sign out
        </button>
      )}
    </div>
  );
}
