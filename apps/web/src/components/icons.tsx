/**
 * Inline SVG icons for the composer's buttons. Emoji would depend on the system having a colour
 * emoji font (many Linux desktops and kiosks do not, and show an empty box); these draw with the
 * button's own text colour. Decorative: the buttons carry the accessible names.
 */
const common = {
  width: 20,
  height: 20,
  viewBox: '0 0 24 24',
  fill: 'none',
  stroke: 'currentColor',
  'stroke-width': 2,
  'stroke-linecap': 'round',
  'stroke-linejoin': 'round',
  focusable: 'false',
} as const;

export function PaperclipIcon() {
  return (
    <svg aria-hidden="true" {...common}>
      <path d="M21 11.5 12.5 20a5.5 5.5 0 0 1-7.8-7.8l8.5-8.5a3.7 3.7 0 0 1 5.2 5.2l-8.5 8.5a1.8 1.8 0 0 1-2.6-2.6l7.8-7.8" />
    </svg>
  );
}

export function MicrophoneIcon() {
  return (
    <svg aria-hidden="true" {...common}>
      <rect x="9" y="3" width="6" height="11" rx="3" />
      <path d="M5 11a7 7 0 0 0 14 0M12 18v3" />
    </svg>
  );
}

export function StopIcon() {
  return (
    <svg aria-hidden="true" {...common}>
      <rect x="6" y="6" width="12" height="12" rx="1.5" fill="currentColor" />
    </svg>
  );
}

export function MenuIcon() {
  return (
    <svg aria-hidden="true" {...common}>
      <path d="M4 6h16M4 12h16M4 18h16" />
    </svg>
  );
}

export function PlusIcon() {
  return (
    <svg aria-hidden="true" {...common}>
      <path d="M12 5v14M5 12h14" />
    </svg>
  );
}

export function MoreIcon() {
  return (
    <svg aria-hidden="true" {...common}>
      <circle cx="5" cy="12" r="1.5" fill="currentColor" />
      <circle cx="12" cy="12" r="1.5" fill="currentColor" />
      <circle cx="19" cy="12" r="1.5" fill="currentColor" />
    </svg>
  );
}
