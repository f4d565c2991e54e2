import { useCallback, useState } from 'preact/hooks';
import type { ThemeChoice } from '../theme.ts';
import { HeaderMenu, type PanelName } from './header-menu.tsx';
import { MenuIcon, MoreIcon, PlusIcon } from './icons.tsx';

export interface AppHeaderProps {
  title: string;
  listOpen: boolean;
  onToggleList: () => void;
  onNew: () => void;
  canStartNew: boolean;
  panels: readonly PanelName[];
  openPanel: PanelName | undefined;
  onPanel: (panel: PanelName) => void;
  theme: ThemeChoice;
  onTheme: (theme: ThemeChoice) => void;
  onSignOut?: () => void;
}

/** One row at every width: conversations, the conversation's title, new, and a menu for the rest. */
export function AppHeader(props: AppHeaderProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const closeMenu = useCallback(() => setMenuOpen(false), []);
  return (
    <header class="chat-header" data-testid="chat-header">
      <button
        type="button"
        class="secondary icon-button"
        data-testid="conversations-button"
        aria-label="Conversations"
        title="Conversations"
        aria-expanded={props.listOpen}
        onClick={props.onToggleList}
      >
        <MenuIcon />
      </button>
      <h1>
        <span class="visually-hidden">Nexus: </span>
        <span class="chat-title" data-testid="chat-title">
          {props.title}
        </span>
      </h1>
      <button
        type="button"
        class="secondary icon-button"
        data-testid="new-conversation-button"
        aria-label="New conversation"
        title="New conversation (Ctrl+Shift+O)"
        aria-keyshortcuts="Control+Shift+O Meta+Shift+O"
        disabled={!props.canStartNew}
        onClick={props.onNew}
      >
        <PlusIcon />
      </button>
      <div class="header-menu-anchor">
        <button
          type="button"
          class="secondary icon-button"
          data-testid="more-button"
          aria-label="Menu: panels and appearance"
          title="Menu"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <MoreIcon />
        </button>
        {menuOpen && (
          <HeaderMenu
            panels={props.panels}
            openPanel={props.openPanel}
            onPanel={(panel) => {
              setMenuOpen(false);
              props.onPanel(panel);
            }}
            theme={props.theme}
            onTheme={props.onTheme}
            {...(props.onSignOut ? { onSignOut: props.onSignOut } : {})}
            onClose={closeMenu}
          />
        )}
      </div>
    </header>
  );
}
