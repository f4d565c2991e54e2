import { useEffect, useMemo, useState } from 'preact/hooks';
import { ChatSession } from '../chat-session.ts';
import { randomId } from '../random-id.ts';
import type { ChatStorage, KeyValueStore } from '../storage.ts';
import { takeTokenFromLocation } from '../token-from-location.ts';
import { ChatView } from './chat-view.tsx';
import { SignInForm } from './sign-in-form.tsx';

export interface AppProps {
  storage: ChatStorage;
  url: string;
  initialToken: string | undefined;
  /** Where the colour scheme choice is kept. */
  themeStore?: KeyValueStore;
}

const rejectedTokenMessage =
  'The gateway did not accept that token. It changes when the gateway is set up again.';

export function App({ storage, url, initialToken, themeStore }: AppProps) {
  const [token, setToken] = useState(initialToken);
  const [signInError, setSignInError] = useState<string>();
  const pairingApi = useMemo(() => (token === undefined ? undefined : { url, token }), [token, url]);
  const session = useMemo(
    () => (token === undefined ? undefined : new ChatSession({ url, token, storage, randomId })),
    [token, url, storage],
  );

  // A token link pasted into a tab already open only changes the hash: no page load follows.
  useEffect(() => {
    const onHashChange = () => {
      const linked = takeTokenFromLocation(window.location, window.history);
      if (linked === undefined) return;
      storage.writeToken(linked);
      setSignInError(undefined);
      setToken(linked);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, [storage]);

  useEffect(() => {
    if (session === undefined) return;
    session.start();
    const flush = () => session.flush();
    const online = () => session.reconnectNow();
    const visibility = () => {
      if (document.visibilityState === 'hidden') session.flush();
      else session.reconnectNow();
    };
    window.addEventListener('pagehide', flush);
    window.addEventListener('online', online);
    document.addEventListener('visibilitychange', visibility);
    return () => {
      window.removeEventListener('pagehide', flush);
      window.removeEventListener('online', online);
      document.removeEventListener('visibilitychange', visibility);
      session.stop();
    };
  }, [session]);

  if (session === undefined) {
    return (
      <SignInForm
        error={signInError}
        onToken={(value) => {
          storage.writeToken(value);
          setSignInError(undefined);
          setToken(value);
        }}
      />
    );
  }
  return (
    <ChatView
      session={session}
      {...(pairingApi ? { pairingApi } : {})}
      clientId={storage.clientId()}
      {...(themeStore ? { themeStore } : {})}
      onUnauthorized={() => {
        storage.clearToken();
        setSignInError(rejectedTokenMessage);
        setToken(undefined);
      }}
    />
  );
}
