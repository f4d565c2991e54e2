/** The parts of a request target the routes use. */
export interface RequestTarget {
  /** Normalised by the WHATWG URL rules (dot segments resolved, `\` read as `/`), still percent-encoded. */
  pathname: string;
  searchParams: URLSearchParams;
}

/**
 * The one way Nexus reads `request.url` (the gateway's routes and the memory HTTP server). `new URL(request.url, base)` throws on valid
 * request lines such as `GET // HTTP/1.1` (it reads `//` as the start of a host name), and a throw
 * inside a request listener used to end the process. Here an origin-form target (`/path?query`) is
 * appended to a fixed origin, so it can never name another host; the absolute form
 * (`http://host/path`, which HTTP/1.1 servers must accept) keeps only its path and query. Anything
 * else (`*`, `host:port`, other schemes, control characters, backslashes) is `undefined`: the
 * caller answers 400.
 */
export function parseRequestTarget(target: string | undefined): RequestTarget | undefined {
  if (!target || hasForbiddenCharacter(target)) return undefined;
  let url: URL;
  try {
    if (target.startsWith('/')) url = new URL(`http://localhost${target}`);
    else if (/^https?:\/\//iu.test(target)) url = new URL(target);
    else return undefined;
  } catch {
    return undefined;
  }
  return { pathname: url.pathname, searchParams: url.searchParams };
}

/** The path of a request (see `parseRequestTarget`), or `undefined` when the target is unusable. */
export function requestPath(request: { url?: string | undefined }): string | undefined {
  return parseRequestTarget(request.url)?.pathname;
}

/** `decodeURIComponent` that answers `undefined` instead of throwing on malformed escapes (`%E0%A4%A`). */
export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Control characters (NUL included) and backslashes never belong in a path that is served. */
function hasForbiddenCharacter(target: string): boolean {
  for (let index = 0; index < target.length; index += 1) {
    const code = target.charCodeAt(index);
    if (code < 0x20 || code === 0x7f || code === 0x5c) return true;
  }
  return false;
}
