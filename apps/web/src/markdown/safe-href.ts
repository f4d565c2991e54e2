const allowedLink = /^(?:https?:\/\/|mailto:)[^\s<>"'`\\]*$/i;

/**
 * A link target from model text, or undefined when this page will not follow it: only http,
 * https and mailto, without quotes, spaces or backslashes (no `javascript:`, no `data:`).
 */
export function safeHref(url: string): string | undefined {
  const trimmed = url.trim();
  return allowedLink.test(trimmed) ? trimmed : undefined;
}

/** The host an https URL would contact, or undefined for anything else. */
export function remoteImageHost(url: string): string | undefined {
  if (!/^https:\/\//i.test(url.trim()) || safeHref(url) === undefined) return undefined;
  try {
    return new URL(url.trim()).host || undefined;
  } catch {
    return undefined;
  }
}
