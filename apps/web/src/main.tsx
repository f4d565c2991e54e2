import { render } from 'preact';
import { App } from './components/app.tsx';
import { randomId } from './random-id.ts';
import { ChatStorage, type KeyValueStore, memoryKeyValueStore } from './storage.ts';
import { applyTheme, readTheme } from './theme.ts';
import { takeTokenFromLocation } from './token-from-location.ts';
import { webSocketUrl } from './web-socket-url.ts';
import './styles.css';

function browserStore(): KeyValueStore {
  try {
    const store = window.localStorage;
    store.getItem('nexus.probe');
    return store;
  } catch {
    // Storage blocked by the browser: the chat still works, it just forgets on reload.
    return memoryKeyValueStore();
  }
}

const store = browserStore();
// Before the first render, so a chosen dark scheme does not flash light.
applyTheme(store, readTheme(store), document.documentElement);
const storage = new ChatStorage({ store, randomId });
// Traded for a session cookie at once (see App); a token an older version stored is traded too.
const tokenFromLink = takeTokenFromLocation(window.location, window.history);

// The offline shell (public/sw.js), once the page has loaded so it never slows the first paint.
// Service workers exist only on secure origins (https, or localhost).
if (window.isSecureContext && 'serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js').catch(() => {
      // Without it the chat works the same; it just cannot open offline.
    });
  });
}

const root = document.getElementById('app');
if (root) {
  render(
    <App
      storage={storage}
      url={webSocketUrl(window.location)}
      initialToken={tokenFromLink ?? storage.readToken()}
      themeStore={store}
    />,
    root,
  );
}
