import { afterEach, describe, expect, it } from 'vitest';
import { type StandInGateway, startStandInGateway } from './testing/stand-in-gateway.ts';
import { isTokenRejected } from './token-check.ts';

let gateway: StandInGateway | undefined;

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

describe('isTokenRejected', () => {
  it('is true only when the gateway answers 401 to the bearer token', async () => {
    gateway = await startStandInGateway({ token: 'right' });
    expect(await isTokenRejected({ url: gateway.url, token: 'wrong' })).toBe(true);
    expect(await isTokenRejected({ url: gateway.url, token: 'right' })).toBe(false);
  });

  it('is false when the gateway cannot be reached, so the client keeps retrying', async () => {
    expect(await isTokenRejected({ url: 'ws://127.0.0.1:9/ws', token: 'any' })).toBe(false);
  });
});
