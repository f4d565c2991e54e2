/**
 * Takes `#token=…` out of the address bar: returns the token and rewrites the URL without the hash,
 * so the token does not linger in history, bookmarks or a shared screenshot.
 */
export function takeTokenFromLocation(
  location: Pick<Location, 'hash' | 'pathname' | 'search'>,
  history: Pick<History, 'replaceState'>,
): string | undefined {
  if (!location.hash.startsWith('#')) return undefined;
  const token = new URLSearchParams(location.hash.slice(1)).get('token')?.trim();
  if (!token) return undefined;
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  return token;
}
