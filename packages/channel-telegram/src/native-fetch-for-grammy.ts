import type { ApiClientOptions } from 'grammy';
import { requestBodyBytes } from './request-body-bytes.ts';

type GrammyFetch = NonNullable<ApiClientOptions['fetch']>;

interface GrammyRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: { aborted: boolean; addEventListener(type: 'abort', listener: () => void): void } | null;
}

/**
 * grammY's API client on Node's built-in fetch (undici) instead of its default node-fetch v2,
 * which costs several times more CPU per call. grammY hands over an AbortSignal from its
 * `abort-controller` polyfill, which undici refuses, so aborts are forwarded to a native signal.
 * Multipart uploads (reply photos and documents) are read whole and sent as bytes.
 */
export function nativeFetchForGrammy(fetchFunction: typeof globalThis.fetch = globalThis.fetch): GrammyFetch {
  const call = async (url: string, init: GrammyRequestInit = {}) => {
    const body = await requestBodyBytes(init.body);
    const controller = new AbortController();
    if (init.signal?.aborted) controller.abort();
    else init.signal?.addEventListener('abort', () => controller.abort());
    const headers = { ...init.headers };
    delete headers.connection;
    return fetchFunction(url, {
      method: init.method ?? 'GET',
      headers,
      ...(body === undefined ? {} : { body: new Uint8Array(body) }),
      signal: controller.signal,
    });
  };
  return call as unknown as GrammyFetch;
}
