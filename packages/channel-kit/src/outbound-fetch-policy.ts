/**
 * Where one adapter may download from. Every adapter's media download goes through
 * `fetchWithPolicy` with one of these, so a received message, attachment or file path can never
 * point the gateway at another server, a private network or the machine itself.
 */
export interface OutboundFetchPolicy {
  /** Named in refusals: "Refusing to fetch WhatsApp media from …". */
  platform: string;
  /** Host names allowed over HTTPS: `mmg.whatsapp.net` exactly, or `.whatsapp.net` for its subdomains. */
  allowedHosts: readonly string[];
  /**
   * Origins the operator configured (a self-hosted Bot API server, a local stand-in): matched
   * exactly (scheme, host, port), trusted as given, private addresses included. Never taken from
   * anything a platform or a person sent.
   */
  configuredOrigins?: readonly string[];
  /** Deadline of one download, connection to last byte. */
  timeoutMs: number;
  /**
   * Name resolution; every address it returns must be public, and the connection goes to the
   * address checked (no second lookup a rebinding DNS server could answer differently).
   * Defaults to the system resolver; tests inject one that names a loopback address.
   */
  resolve?: (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;
  /**
   * A `fetch` the operator injected (a proxy, a custom agent). The URL rules, the byte cap, the
   * deadline and the no-redirect rule still hold, but that fetch resolves names itself, so the
   * resolved-address check is its business.
   */
  transport?: typeof globalThis.fetch;
}

/** The hosts each platform serves media from, per its documentation and client libraries. */
export const PLATFORM_MEDIA_HOSTS = {
  /** Baileys' `DEF_MEDIA_HOST` and the `media-*.cdn.whatsapp.net` hosts WhatsApp hands out. */
  whatsapp: ['mmg.whatsapp.net', '.whatsapp.net'],
  /** Discord's attachment CDN (Discord docs, "Image Formatting" / attachment object `url`). */
  discord: ['cdn.discordapp.com', 'media.discordapp.net'],
  /** Bot API file downloads: `https://api.telegram.org/file/bot<token>/<file_path>`. */
  telegram: ['api.telegram.org'],
} as const satisfies Record<string, readonly string[]>;

export const DEFAULT_OUTBOUND_TIMEOUT_MS = 60_000;

/** Whether `hostname` is in `allowedHosts` (exact, or under a `.suffix` entry). */
export function isAllowedHost(allowedHosts: readonly string[], hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return allowedHosts.some((allowed) =>
    allowed.startsWith('.') ? host.endsWith(allowed) && host.length > allowed.length : host === allowed,
  );
}
