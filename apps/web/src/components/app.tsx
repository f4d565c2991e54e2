import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ChatSession } from '../chat-session.ts';
import { randomId } from '../random-id.ts';
import type { ChatStorage, KeyValueStore } from '../storage.ts';
import { takeTokenFromLocation } from '../token-from-location.ts';
import { currentSession, type SignedIn, SignInError, signIn, signOut } from '../web-session.ts';
import { ChatView } from './chat-view.tsx';
import { SignInForm } from './sign-in-form.tsx';

export interface AppProps {
  storage: ChatStorage;
  url: string;
  /** A token from the owner link, or one an older version of this page left in storage. */
  initialToken: string | undefined;
  /** Where the colour scheme choice is kept. */
  themeStore?: KeyValueStore;
}

type Phase =
  | { kind: 'checking' }
  | { kind: 'signed-out'; error?: string }
  | { kind: 'signed-in'; generation: number; isOwner: boolean };

const rejectedTokenMessage =
  'The gateway did not accept that token. It changes when the gateway is set up again.';

export function App({ storage, url, initialToken, themeStore }: AppProps) {
  const [phase, setPhase] = useState<Phase>({ kind: 'checking' });
  const generation = phase.kind === 'signed-in' ? phase.generation : -1;
  const pairingApi = useMemo(() => (generation < 0 ? undefined : { url }), [generation, url]);
  // A new session per sign-in: it names the person the gateway answered with.
  const session = useMemo(
    () => (generation < 0 ? undefined : new ChatSession({ url, storage, randomId })),
    [generation, url, storage],
  );

  const signInWith = useCallback(
    async (token: string | undefined) => {
      const signedIn = (answer: SignedIn) => {
        storage.writeClientId(answer.clientId);
        setPhase((previous) => ({
          kind: 'signed-in',
          generation: previous.kind === 'signed-in' ? previous.generation + 1 : 0,
          isOwner: answer.person !== 'invited',
        }));
      };
      const offline = () =>
        setPhase((previous) =>
          previous.kind === 'signed-in' ? previous : { kind: 'signed-in', generation: 0, isOwner: true },
        );
      if (token !== undefined) {
        try {
          const answer = await signIn({ url, token, clientId: storage.clientId() });
          storage.clearToken();
          signedIn(answer);
        } catch (error) {
          if (error instanceof SignInError && (error.status === 401 || error.status === 403)) {
            storage.clearToken();
            setPhase({
              kind: 'signed-out',
              error: error.status === 403 ? error.message : rejectedTokenMessage,
            });
          } else {
            storage.writeToken(token);
            offline();
          }
        }
        return;
      }
      try {
        const current = await currentSession({ url });
        if (current === undefined) setPhase({ kind: 'signed-out' });
        else signedIn(current);
      } catch {
        offline();
      }
    },
    [url, storage],
  );

  /**
   * Signs in: a token (a link, the form, or one left in storage) is traded for the session cookie
   * and then forgotten; without one, the cookie is asked about. A gateway out of reach opens the
   * chat anyway, so messages typed offline wait in storage; the socket's refusal tells if the
   * cookie was no good, and a token kept for that moment is tried then.
   */
  const entering = useRef(false);
  const enter = useCallback(
    async (token: string | undefined) => {
      // The socket's refusal can be reported more than once; one sign-in at a time.
      if (entering.current) return;
      entering.current = true;
      try {
        await signInWith(token);
      } finally {
        entering.current = false;
      }
    },
    [signInWith],
  );

  // The token from the link (or storage) is tried once, at load.
  useEffect(() => {
    void enter(initialToken);
  }, [enter]);

  // A token link pasted into a tab already open only changes the hash: no page load follows.
  useEffect(() => {
    const onHashChange = () => {
      const linked = takeTokenFromLocation(window.location, window.history);
      if (linked !== undefined) void enter(linked);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, [enter]);

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

  if (phase.kind === 'checking') return null;
  if (session === undefined) {
    return (
      <SignInForm
        error={phase.kind === 'signed-out' ? phase.error : undefined}
        onToken={(value) => void enter(value)}
      />
    );
  }
  return (
    <ChatView
      session={session}
      {...(pairingApi ? { pairingApi } : {})}
      clientId={storage.clientId()}
      {...(themeStore ? { themeStore } : {})}
      isOwner={phase.kind === 'signed-in' && phase.isOwner}
      onSignOut={() => {
        setPhase({ kind: 'signed-out' });
        signOut({ url }).catch(() => {
          // Out of reach: the cookie is still dropped from this page's view; it ends in 90 days.
        });
      }}
      onUnauthorized={() => {
        const kept = storage.readToken();
        if (kept !== undefined) void enter(kept);
        else setPhase({ kind: 'signed-out', error: signedOutMessage });
      }}
    />
  );
}

const signedOutMessage = 'This browser is signed out. Open the owner link again, or paste its token.';
