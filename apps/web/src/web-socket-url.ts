/** The gateway's web-socket endpoint on the page's own origin (`ws:` or `wss:` to match the page). */
export function webSocketUrl(location: Pick<Location, 'protocol' | 'host'>): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ws`;
}
