import { useEffect, useState } from 'preact/hooks';

export interface CopyButtonProps {
  /** The text copied, read when clicked (a streaming reply grows meanwhile). */
  text: () => string;
  label: string;
  class?: string;
}

/** Copies text to the clipboard and says so for two seconds, or says why it could not. */
export function CopyButton({ text, label, class: className }: CopyButtonProps) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2_000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      class={`link-button copy-button ${className ?? ''}`}
      data-testid="copy-button"
      aria-label={label}
      onClick={() => {
        // The clipboard API exists only on secure origins (https or localhost).
        const clipboard = navigator.clipboard as Clipboard | undefined;
        if (!clipboard) return setState('failed');
        clipboard.writeText(text()).then(
          () => setState('copied'),
          () => setState('failed'),
        );
      }}
    >
      <span aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
      </span>
    </button>
  );
}
