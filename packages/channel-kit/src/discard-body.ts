import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long, and how much more of a refused body, is read and dropped before the sender is cut off. */
const DISCARD_MS = 5_000;
const DISCARD_BYTES = 32 * 1024 * 1024;

export interface DiscardBodyLimits {
  /** Default 5,000. */
  maxMs?: number;
  /** Default 32 MiB. */
  maxBytes?: number;
}

/**
 * Reads what is left of a refused request's body and drops it; resolves `true` once the body has
 * ended, so the refusal can be sent then, or `false` when the sender went past `limits` (5 s, 32 MiB) and
 * the connection was cut. Nothing is kept.
 *
 * Why not answer at once with `Connection: close`: most clients write their whole body before
 * they read the answer, and a socket closed while their bytes are still arriving is reset by the
 * kernel, which throws away the unread answer with it. The client then sees ECONNRESET instead of
 * the 413 (the HTTP surface test caught that race). With the body read to its end, the answer and
 * the close reach the client intact.
 */
export function discardBody(request: IncomingMessage, limits: DiscardBodyLimits = {}): Promise<boolean> {
  if (request.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (ended: boolean) => {
      clearTimeout(deadline);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('close', onClose);
      if (!ended) request.socket.destroy();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > (limits.maxBytes ?? DISCARD_BYTES)) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(request.complete);
    const deadline = setTimeout(() => finish(false), limits.maxMs ?? DISCARD_MS);
    deadline.unref();
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('close', onClose);
    request.resume();
  });
}

/**
 * Sends a refusal (`answer` writes it) to a request whose body may still be arriving: at once when
 * the body was read already, otherwise after `discardBody`, with `Connection: close`, and not at
 * all when the sender was cut off or something else answered meanwhile.
 */
export function refuseAfterBody(
  request: IncomingMessage,
  response: ServerResponse,
  answer: () => void,
): void {
  if (request.complete) {
    answer();
    return;
  }
  void discardBody(request).then((ended) => {
    if (!ended || response.headersSent) return;
    response.setHeader('connection', 'close');
    answer();
  });
}
