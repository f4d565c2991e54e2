// The installed app's offline shell. The page and its hashed assets are kept, so Nexus opens
// without a network and says it is offline; conversations, uploads and the APIs always go to the
// gateway and are never cached here (they carry the person's data and the token).
const CACHE = 'nexus-shell-v1';
const NEVER_CACHED = /^\/(?:api|ws|health|ready|metrics)(?:\/|$)/;

self.addEventListener('install', (event) => {
  event.waitUntil(cacheShell().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || NEVER_CACHED.test(url.pathname))
    return;
  if (request.mode === 'navigate') event.respondWith(networkThenShell(request));
  else event.respondWith(cacheThenNetwork(request));
});

/** The page and everything it names (scripts, styles), plus the manifest and icon. */
async function cacheShell() {
  const cache = await caches.open(CACHE);
  const page = await fetch('/', { cache: 'no-cache' });
  if (!page.ok) return;
  const html = await page.clone().text();
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]);
  await cache.put('/', page);
  await cache.addAll([...new Set([...assets, '/manifest.webmanifest', '/icon-192.png'])]);
}

/** The newest page when the gateway answers (kept for next time), the kept one when it does not. */
async function networkThenShell(request) {
  try {
    const response = await fetch(request);
    if (response.ok) {
      const cache = await caches.open(CACHE);
      await cache.put('/', response.clone());
    }
    return response;
  } catch (error) {
    const shell = await caches.match('/');
    if (shell) return shell;
    throw error;
  }
}

/** Hashed assets never change: the kept copy first, else the network (and keep it). */
async function cacheThenNetwork(request) {
  const cached = await caches.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && new URL(request.url).pathname.startsWith('/assets/')) {
    const cache = await caches.open(CACHE);
    await cache.put(request, response.clone());
  }
  return response;
}
