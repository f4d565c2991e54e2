import { connect } from 'node:net';
import type { HttpAttack } from './http-attacks.ts';

export interface RawExchange {
  /** Every byte the server sent back. */
  response: Buffer;
  /** `server`: the server closed or reset the connection; `client`: we gave up after `giveUpMs`. */
  closedBy: 'server' | 'client';
}

/**
 * Sends one raw request on a fresh TCP connection and collects whatever comes back until the
 * server closes the connection (or `giveUpMs` passes, for requests a server may legitimately leave
 * open, such as an accepted upgrade).
 */
export function sendRawRequest(
  options: { host: string; port: number; giveUpMs?: number },
  attack: HttpAttack,
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect({ host: options.host, port: options.port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closedBy: RawExchange['closedBy']) => {
      if (settled) return;
      settled = true;
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ response: Buffer.concat(chunks), closedBy });
    };
    const giveUp = setTimeout(() => finish('client'), options.giveUpMs ?? 3000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => finish('server'));
    socket.on('close', () => finish('server'));
    socket.once('connect', async () => {
      for (const part of attack.parts) {
        if (settled || socket.destroyed) return;
        if (typeof part === 'number') await new Promise((wait) => setTimeout(wait, part));
        else await new Promise<void>((written) => socket.write(part, () => written()));
      }
      if (attack.endAfterSend && !socket.destroyed) socket.end();
    });
  });
}
