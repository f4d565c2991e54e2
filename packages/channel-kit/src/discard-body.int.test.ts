import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type DiscardBodyLimits, discardBody, refuseAfterBody } from './discard-body.ts';

const LIMIT = 1024;
const BIG = Buffer.alloc(3 * 1024 * 1024, 0x61);

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server that refuses any body over LIMIT with 413, the way the webhook and upload routes do. */
async function startRefusingServer(
  refuse: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<number> {
  server = createServer((request, response) => {
    if (Number(request.headers['content-length'] ?? 0) > LIMIT) {
      refuse(request, response);
      return;
    }
    request.resume();
    request.once('end', () => response.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server!.address() as { port: number }).port;
}

/** Discards the rest of the body, then answers 413 and closes; records what discardBody said. */
function refuseAfterDiscarding(outcomes: boolean[], limits?: DiscardBodyLimits) {
  return (request: IncomingMessage, response: ServerResponse) => {
    void discardBody(request, limits).then((ended) => {
      outcomes.push(ended);
      if (ended) response.writeHead(413, { connection: 'close' }).end();
    });
  };
}

/**
 * A client as most are: it writes the request and its whole body, then reads what came back
 * until the server closes. `stallAfter` sends only that many body bytes and then waits.
 */
function post(port: number, body: Buffer, options: { stallAfter?: number } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const done = () => resolve(Buffer.concat(chunks).toString('latin1'));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', done);
    socket.on('close', done);
    const head = `POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    socket.write(Buffer.concat([Buffer.from(head), body.subarray(0, options.stallAfter ?? body.length)]));
  });
}

describe('discardBody', () => {
  it('lets a refusal reach clients that write their whole body before reading', async () => {
    const outcomes: boolean[] = [];
    const port = await startRefusingServer(refuseAfterDiscarding(outcomes));
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(port, BIG)));
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcomes).toEqual(Array(12).fill(true));
    // The server still answers ordinary requests.
    expect(await post(port, Buffer.from('{}'))).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('cuts off a sender past the byte limit without answering', async () => {
    const outcomes: boolean[] = [];
    const port = await startRefusingServer(refuseAfterDiscarding(outcomes, { maxBytes: 256 * 1024 }));
    expect(await post(port, BIG)).toBe('');
    expect(outcomes).toEqual([false]);
  });

  it('cuts off a sender that stops in the middle of its body once the time is up', async () => {
    const outcomes: boolean[] = [];
    const port = await startRefusingServer(refuseAfterDiscarding(outcomes, { maxMs: 200 }));
    const started = performance.now();
    expect(await post(port, BIG, { stallAfter: 4096 })).toBe('');
    expect(performance.now() - started).toBeLessThan(3000);
    expect(outcomes).toEqual([false]);
  });

  it('resolves at once for a body already read', async () => {
    const outcomes: boolean[] = [];
    const port = await startRefusingServer(() => {});
    server!.removeAllListeners('request');
    server!.on('request', (request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      request.once('end', () => {
        void discardBody(request).then((ended) => {
          outcomes.push(ended);
          response.writeHead(413, { connection: 'close' }).end();
        });
      });
    });
    expect(await post(port, Buffer.alloc(4096))).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcomes).toEqual([true]);
  });

  it('refuseAfterBody answers after the body with Connection: close, and not when another answer went first', async () => {
    const port = await startRefusingServer((request, response) => {
      // Another part of the server answers as the body ends, before the refusal's turn comes.
      if (request.url === '/answered') request.once('end', () => response.writeHead(400).end());
      refuseAfterBody(request, response, () => response.writeHead(413).end());
    });
    const refused = await post(port, BIG);
    expect(refused).toMatch(/^HTTP\/1\.1 413 /);
    expect(refused.toLowerCase()).toContain('connection: close');
    const socketAnswer = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.on('error', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.end(
        Buffer.concat([
          Buffer.from(
            `POST /answered HTTP/1.1\r\nHost: x\r\nContent-Length: ${BIG.length}\r\nConnection: close\r\n\r\n`,
          ),
          BIG,
        ]),
      );
    });
    // The 400 written first stands; the refusal after the body adds nothing.
    expect(socketAnswer).toMatch(/^HTTP\/1\.1 400 /);
    expect(socketAnswer).not.toContain('413');
  });
});
