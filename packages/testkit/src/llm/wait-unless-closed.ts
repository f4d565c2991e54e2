import type { ServerResponse } from 'node:http';

/**
 * Waits `ms`, or less if the client goes away first, so a pending delay never keeps the server
 * (or the test process) alive. Resolves true when the response is still open.
 */
export function waitUnlessClosed(response: ServerResponse, ms: number): Promise<boolean> {
  if (response.destroyed || response.writableEnded) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      response.off('close', onClose);
      resolve(!response.destroyed);
    }, ms);
    response.once('close', onClose);
  });
}
