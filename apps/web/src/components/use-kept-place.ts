import type { RefObject } from 'preact';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';

/** How long after older messages are put above the reader's place is held against later layout. */
const holdMs = 1500;

interface Place {
  row: Element;
  /** Its distance from the top of the screen when the reader asked for older messages. */
  top: number;
}

/**
 * Keeps what the reader looks at in place when older messages are put above it. `mark` is called
 * just before they are asked for; when they arrive, the list is scrolled by what was put above,
 * and for a moment after it by what changes height above (replies are laid out only as they near
 * the screen, from a guessed height). Browsers' scroll anchoring does not do it: Chromium's does
 * not act at the top of a list, which is where the reader is when asking, and Safari has none.
 */
export function useKeptPlace(listRef: RefObject<HTMLElement>, firstMessageId: string | undefined) {
  const marked = useRef<Place | undefined>(undefined);
  const held = useRef<(Place & { until: number }) | undefined>(undefined);

  const restore = (place: Place): void => {
    const list = listRef.current;
    if (!list || !place.row.isConnected) return;
    const moved = place.row.getBoundingClientRect().top - place.top;
    if (Math.abs(moved) >= 0.5) list.scrollTop += moved;
  };

  useLayoutEffect(() => {
    const place = marked.current;
    const first = listRef.current?.querySelector('.message-items > li');
    if (place === undefined || first === place.row || first == null) return;
    marked.current = undefined;
    restore(place);
    held.current = { ...place, until: performance.now() + holdMs };
  }, [firstMessageId]);

  useEffect(() => {
    const list = listRef.current;
    const items = list?.querySelector('.message-items');
    if (!list || !items || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      const place = held.current;
      if (place === undefined) return;
      if (performance.now() > place.until) held.current = undefined;
      else restore(place);
    });
    observer.observe(items);
    // The reader scrolling on their own ends the hold.
    const release = () => {
      held.current = undefined;
    };
    const events = ['wheel', 'touchstart', 'pointerdown', 'keydown'] as const;
    for (const event of events) list.addEventListener(event, release, { passive: true });
    return () => {
      observer.disconnect();
      for (const event of events) list.removeEventListener(event, release);
    };
  }, [firstMessageId === undefined]);

  /** Notes the oldest message's place on screen: call just before asking for older messages. */
  return function mark(): void {
    const row = listRef.current?.querySelector('.message-items > li');
    marked.current = row ? { row, top: row.getBoundingClientRect().top } : undefined;
  };
}
