import type { MCPTransport } from '@ai-sdk/mcp';

type Handler<T extends keyof MCPTransport> = NonNullable<MCPTransport[T]>;

/**
 * The transport as the AI SDK's client sees it, plus a close callback of our own: the client
 * takes over `onclose`, and a server that exits or drops its session must still be noticed so
 * it is reconnected.
 */
export function watchTransportClose(inner: MCPTransport, onClose: () => void): MCPTransport {
  inner.onclose = onClose;
  // The AI SDK's client only assigns its handlers and sets the protocol version through
  // `setProtocolVersion`, never reading them back: they are write-only here, since a property that
  // may be absent cannot be an accessor that returns undefined (exactOptionalPropertyTypes).
  return {
    start: () => inner.start(),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    // Streamable HTTP sends the negotiated version as a header on every later request.
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
    set onclose(handler: Handler<'onclose'>) {
      inner.onclose = () => {
        handler();
        onClose();
      };
    },
    set onerror(handler: Handler<'onerror'>) {
      inner.onerror = handler;
    },
    set onmessage(handler: Handler<'onmessage'>) {
      inner.onmessage = handler;
    },
  };
}
