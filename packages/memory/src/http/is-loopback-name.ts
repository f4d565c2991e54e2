/**
 * Names only this machine answers to: `localhost`, `127.0.0.0/8` and `::1` (bracketed or not).
 * A keyless memory service answers only requests addressed to one of these, so a web page
 * whose own name was re-pointed at 127.0.0.1 (DNS rebinding) is refused: the browser still
 * sends the page's name in `Host`.
 */
export function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/u, '');
  return (
    name === 'localhost' ||
    name === '::1' ||
    name === '[::1]' ||
    /^127\.(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){2}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/u.test(name)
  );
}

/** The host name of a `Host` header value (`127.0.0.1:8787`, `[::1]:8787`, `localhost`), or undefined. */
export function hostHeaderName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return new URL(`http://${header}/`).hostname;
  } catch {
    return undefined;
  }
}
