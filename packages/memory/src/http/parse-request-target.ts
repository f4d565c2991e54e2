/** The parts of a request target the memory routes use. */
export interface RequestTarget {
  pathname: string;
  searchParams: URLSearchParams;
}

/**
 * Reads `request.url` without throwing. `new URL(target, base)` throws on valid request lines
 * such as `GET // HTTP/1.1` (it reads `//` as the start of a host name); an origin-form target is
 * appended to a fixed origin instead, and the absolute form keeps only its path and query.
 * Anything else (`*`, `host:port`, other schemes, control characters) is `undefined`: answer 400.
 * (The gateway has the same rule in apps/gateway/src/http; packages cannot import it.)
 */
export function parseRequestTarget(target: string | undefined): RequestTarget | undefined {
  if (!target || hasForbiddenCharacter(target)) return undefined;
  try {
    if (target.startsWith('/')) return new URL(`http://memory.local${target}`);
    return /^https?:\/\//iu.test(target) ? new URL(target) : undefined;
  } catch {
    return undefined;
  }
}

/** `decodeURIComponent` that answers `undefined` instead of throwing on malformed escapes. */
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
