import { useState } from 'preact/hooks';

/**
 * Above the oldest message shown when the gateway holds older history: reads the page before it.
 * The gateway sends a conversation's newest 100 exchanges; a longer one is read back page by page.
 */
export function EarlierMessages({ onShowEarlier }: { onShowEarlier: () => Promise<unknown> }) {
  const [state, setState] = useState<'idle' | 'loading' | 'failed'>('idle');
  const load = () => {
    setState('loading');
    onShowEarlier().then(
      () => setState('idle'),
      () => setState('failed'),
    );
  };
  return (
    <div class="earlier-messages">
      <button
        type="button"
        data-testid="show-earlier"
        onClick={load}
        disabled={state === 'loading'}
        aria-busy={state === 'loading' ? true : undefined}
      >
        {state === 'loading' ? 'Loading earlier messages…' : 'Show earlier messages'}
      </button>
      {state === 'failed' && (
        <p class="earlier-failed" role="alert">
          Earlier messages could not be loaded. Check the connection and try again.
        </p>
      )}
    </div>
  );
}
