import { useEffect, useState } from 'preact/hooks';
import type { ChatSession, ChatSnapshot } from './chat-session.ts';

/** The session's latest snapshot, re-rendering on every change. */
export function useChatSession(session: ChatSession): ChatSnapshot {
  const [snapshot, setSnapshot] = useState(session.snapshot);
  useEffect(() => {
    setSnapshot(session.snapshot);
    return session.subscribe(setSnapshot);
  }, [session]);
  return snapshot;
}
