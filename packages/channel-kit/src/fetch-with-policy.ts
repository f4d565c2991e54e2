import type { LookupAddress } from 'node:dns';
import { lookup as systemLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isPublicAddress } from './is-public-address.ts';
import { OutboundFetchError } from './outbound-fetch-error.ts';
import { isAllowedHost, type OutboundFetchPolicy } from './outbound-fetch-policy.ts';

export interface FetchWithPolicyOptions {
  url: string;
  /** More than this many bytes (announced or received) fails with `attachment_too_large`. */
  maxBytes: number;
  headers?: Record<string, string>;
  abortSignal?: AbortSignal;
}

/**
 * Downloads `url` if the policy allows it: HTTPS to an allowed host whose every resolved address
 * is public (the socket connects to the address checked), or an exact configured origin; at most
 * `maxBytes`, within the policy's deadline; redirects are not followed. Fails with an
 * `OutboundFetchError`.
 */
export async function fetchWithPolicy(
  policy: OutboundFetchPolicy,
  options: FetchWithPolicyOptions,
): Promise<Uint8Array> {
  const url = parseUrl(policy, options.url);
  const configured = (policy.configuredOrigins ?? []).some((origin) => sameOrigin(origin, url));
  if (!configured) {
    if (url.protocol !== 'https:' || !isAllowedHost(policy.allowedHosts, url.hostname))
      throw refused(
        policy,
        `Refusing to fetch ${policy.platform} media from ${url.host}: not one of its hosts.`,
      );
    if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0 && !isPublicAddress(url.hostname))
      throw refused(
        policy,
        `Refusing to fetch ${policy.platform} media from the private address ${url.hostname}.`,
      );
  }
  const signals = [
    AbortSignal.timeout(policy.timeoutMs),
    ...(options.abortSignal ? [options.abortSignal] : []),
  ];
  const signal = AbortSignal.any(signals);
  if (policy.transport) return viaTransport(policy, policy.transport, url, options, signal);
  const response = await send(policy, url, options.headers ?? {}, signal, configured);
  try {
    return await readCapped(policy, response, options.maxBytes, signal);
  } finally {
    response.destroy();
  }
}

function send(
  policy: OutboundFetchPolicy,
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
  configured: boolean,
): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'GET',
      headers,
      signal,
      agent: false,
      ...(configured ? {} : { lookup: checkedLookup(policy) }),
    });
    request.on('response', (response) => {
      if ((response.statusCode ?? 0) >= 300) {
        response.resume();
        const status = response.statusCode ?? 0;
        reject(
          status < 400
            ? refused(
                policy,
                `${policy.platform} media answered with a redirect (${status}); redirects are not followed.`,
              )
            : new OutboundFetchError({
                failure: 'status',
                status,
                message: `${policy.platform} media answered ${status}.`,
              }),
        );
        return;
      }
      resolve(response);
    });
    request.on('error', (error) => reject(classify(policy, error, signal)));
    request.end();
  });
}

async function readCapped(
  policy: OutboundFetchPolicy,
  response: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Uint8Array> {
  if (Number(response.headers['content-length'] ?? 0) > maxBytes) throw tooLarge(policy, maxBytes);
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      received += chunk.length;
      // Stop reading: a lying or missing length must not let a file grow past the cap in memory.
      if (received > maxBytes) throw tooLarge(policy, maxBytes);
      chunks.push(chunk);
    }
  } catch (error) {
    throw classify(policy, error, signal);
  }
  return Buffer.concat(chunks, received);
}

/** The same rules over an injected `fetch`: status, redirect, byte cap and deadline. */
async function viaTransport(
  policy: OutboundFetchPolicy,
  transport: typeof globalThis.fetch,
  url: URL,
  options: FetchWithPolicyOptions,
  signal: AbortSignal,
): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await transport(url, { headers: options.headers ?? {}, signal, redirect: 'manual' });
  } catch (error) {
    throw classify(policy, error, signal);
  }
  if (response.status >= 300 || response.type === 'opaqueredirect') {
    await response.body?.cancel().catch(() => {});
    throw response.status < 400
      ? refused(
          policy,
          `${policy.platform} media answered with a redirect (${response.status}); redirects are not followed.`,
        )
      : new OutboundFetchError({
          failure: 'status',
          status: response.status,
          message: `${policy.platform} media answered ${response.status}.`,
        });
  }
  if (Number(response.headers.get('content-length') ?? 0) > options.maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(policy, options.maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  const reader = response.body?.getReader();
  try {
    for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
      received += read.value.byteLength;
      if (received > options.maxBytes) {
        await reader?.cancel().catch(() => {});
        throw tooLarge(policy, options.maxBytes);
      }
      chunks.push(read.value);
    }
  } catch (error) {
    throw classify(policy, error, signal);
  }
  return Buffer.concat(chunks, received);
}

/** A `lookup` for the socket: resolves, refuses if any address is not public, hands over the checked ones. */
function checkedLookup(policy: OutboundFetchPolicy) {
  const resolve = policy.resolve ?? ((hostname: string) => systemLookup(hostname, { all: true }));
  return (
    hostname: string,
    options: { all?: boolean | undefined; family?: number | string | undefined },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname).then(
      (addresses) => {
        const bad = addresses.find((entry) => !isPublicAddress(entry.address));
        if (addresses.length === 0 || bad) {
          callback(
            refused(
              policy,
              `Refusing to fetch ${policy.platform} media: ${hostname} resolves to ${bad?.address ?? 'nothing'}, not a public address.`,
            ),
            '',
          );
          return;
        }
        const family =
          options.family === 6 || options.family === 'IPv6'
            ? 6
            : options.family === 4 || options.family === 'IPv4'
              ? 4
              : 0;
        const usable = addresses.filter((entry) => family === 0 || entry.family === family);
        const first = usable[0] ?? addresses[0];
        if (options.all)
          callback(
            null,
            usable.map((entry) => ({ address: entry.address, family: entry.family })),
          );
        else callback(null, first?.address ?? '', first?.family ?? 4);
      },
      (error: unknown) => callback(error as Error, ''),
    );
  };
}

function classify(policy: OutboundFetchPolicy, error: unknown, signal: AbortSignal): OutboundFetchError {
  if (error instanceof OutboundFetchError) return error;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof OutboundFetchError) return cause;
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    if (reason?.name === 'TimeoutError')
      return new OutboundFetchError({
        failure: 'timeout',
        message: `${policy.platform} media took longer than ${policy.timeoutMs} ms.`,
        cause: error,
      });
  }
  return new OutboundFetchError({
    failure: 'network',
    message: `${policy.platform} media could not be reached.`,
    cause: error,
  });
}

function parseUrl(policy: OutboundFetchPolicy, raw: string): URL {
  try {
    return new URL(raw);
  } catch (error) {
    throw new OutboundFetchError({
      failure: 'refused',
      message: `${policy.platform} media has no usable URL.`,
      cause: error,
    });
  }
}

function sameOrigin(origin: string, url: URL): boolean {
  try {
    return new URL(origin).origin === url.origin;
  } catch {
    return false;
  }
}

function refused(_policy: OutboundFetchPolicy, message: string): OutboundFetchError {
  return new OutboundFetchError({ failure: 'refused', message });
}

function tooLarge(policy: OutboundFetchPolicy, maxBytes: number): OutboundFetchError {
  return new OutboundFetchError({
    failure: 'too_large',
    message: `${policy.platform} media is larger than ${maxBytes} bytes.`,
  });
}
