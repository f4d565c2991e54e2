import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchWithPolicy } from './fetch-with-policy.ts';
import type { OutboundFetchPolicy } from './outbound-fetch-policy.ts';

let server: Server;
let origin: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? '');
    if (request.url === '/file') response.end('twelve bytes');
    else if (request.url === '/redirect')
      response.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    else if (request.url === '/slow') setTimeout(() => response.end('late'), 2_000);
    else if (request.url === '/unannounced') {
      response.write(Buffer.alloc(64 * 1024));
      response.end(Buffer.alloc(64 * 1024));
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const strict = (extra: Partial<OutboundFetchPolicy> = {}): OutboundFetchPolicy => ({
  platform: 'Test',
  allowedHosts: ['cdn.example.com', '.media.example.com'],
  timeoutMs: 5_000,
  ...extra,
});

describe('fetchWithPolicy', () => {
  it('downloads from a configured origin, within the byte cap', async () => {
    const bytes = await fetchWithPolicy(strict({ configuredOrigins: [origin] }), {
      url: `${origin}/file`,
      maxBytes: 100,
    });
    expect(Buffer.from(bytes).toString()).toBe('twelve bytes');
  });

  it('refuses hosts outside the list, plain http and loopback literals, without connecting', async () => {
    hits.length = 0;
    for (const url of [
      `${origin}/file`,
      'http://cdn.example.com/file',
      'https://cdn.example.com.evil.net/x',
      'https://[::1]/x',
    ])
      await expect(fetchWithPolicy(strict(), { url, maxBytes: 100 })).rejects.toMatchObject({
        failure: 'refused',
        code: 'attachment_unavailable',
        retryable: false,
      });
    expect(hits).toEqual([]);
  });

  it('refuses an allowed host whose name resolves to a private address, before any connection', async () => {
    hits.length = 0;
    for (const address of ['127.0.0.1', '10.0.0.8', '169.254.169.254', '::1']) {
      const policy = strict({ resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }] });
      const failure = await fetchWithPolicy(policy, {
        url: 'https://a.media.example.com/x',
        maxBytes: 100,
      }).catch((error) => error);
      expect(failure).toMatchObject({ failure: 'refused' });
      expect(String(failure.message)).toContain(address);
    }
    // One public and one private answer is still a refusal: the socket might pick either.
    const mixed = strict({
      resolve: async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    });
    await expect(
      fetchWithPolicy(mixed, { url: 'https://cdn.example.com/x', maxBytes: 100 }),
    ).rejects.toMatchObject({ failure: 'refused' });
    expect(hits).toEqual([]);
  });

  it('stops past the byte cap without a length, refuses redirects, keeps its deadline and says 404', async () => {
    const policy = strict({ configuredOrigins: [origin], timeoutMs: 300 });
    await expect(
      fetchWithPolicy(policy, { url: `${origin}/unannounced`, maxBytes: 1000 }),
    ).rejects.toMatchObject({
      code: 'attachment_too_large',
    });
    await expect(
      fetchWithPolicy(policy, { url: `${origin}/redirect`, maxBytes: 1000 }),
    ).rejects.toMatchObject({ failure: 'refused' });
    await expect(fetchWithPolicy(policy, { url: `${origin}/slow`, maxBytes: 1000 })).rejects.toMatchObject({
      code: 'timeout',
      retryable: true,
    });
    await expect(fetchWithPolicy(policy, { url: `${origin}/gone`, maxBytes: 1000 })).rejects.toMatchObject({
      failure: 'status',
      status: 404,
      retryable: false,
    });
  });

  it('keeps the URL rules, the cap and the no-redirect rule over an injected fetch', async () => {
    const called: string[] = [];
    const transport: typeof fetch = (input, init) => {
      called.push(String(input));
      return fetch(input, init);
    };
    const policy = strict({ configuredOrigins: [origin], transport });
    await expect(
      fetchWithPolicy(policy, { url: 'http://127.0.0.1:9/x', maxBytes: 100 }),
    ).rejects.toMatchObject({
      failure: 'refused',
    });
    expect(called).toEqual([]);
    const bytes = await fetchWithPolicy(policy, { url: `${origin}/file`, maxBytes: 100 });
    expect(Buffer.from(bytes).toString()).toBe('twelve bytes');
    await expect(
      fetchWithPolicy(policy, { url: `${origin}/unannounced`, maxBytes: 1000 }),
    ).rejects.toMatchObject({
      code: 'attachment_too_large',
    });
    await expect(
      fetchWithPolicy(policy, { url: `${origin}/redirect`, maxBytes: 1000 }),
    ).rejects.toMatchObject({
      failure: 'refused',
    });
  });
});
