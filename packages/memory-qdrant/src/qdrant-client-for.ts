import { QdrantClient } from '@qdrant/js-client-rest';

/**
 * The caller's client, or a new one for `url` and `apiKey`. A setting the caller left unset is
 * left out of the client's parameters, so the client's own default applies to it.
 */
export function qdrantClientFor(options: {
  client?: QdrantClient | undefined;
  url?: string | undefined;
  apiKey?: string | undefined;
}): QdrantClient {
  if (options.client) return options.client;
  return new QdrantClient({
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  });
}
