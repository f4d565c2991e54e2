import type { MCPTransport } from '@ai-sdk/mcp';

type Handler<T extends keyof MCPTransport> = MCPTransport[T];

/**
 * The transport as the AI SDK's client sees it, plus a close callback of our own: the client
 * takes over `onclose`, and a server that exits or drops its session must still be noticed so
 * it is reconnected.
 */
export function watchTransportClose(inner: MCPTransport, onClose: () => void): MCPTransport {
  let clientOnClose: Handler<'onclose'>;
  inner.onclose = onClose;
  return {
    start: () => inner.start(),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    // Streamable HTTP sends the negotiated version as a header on every later request.
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
    get protocolVersion() {
      return inner.protocolVersion;
    },
    get onclose() {
      return clientOnClose;
    },
    set onclose(handler) {
      clientOnClose = handler;
      inner.onclose = () => {
        handler?.();
        onClose();
      };
    },
    get onerror() {
      return inner.onerror;
    },
    set onerror(handler) {
      inner.onerror = handler;
    },
    get onmessage() {
      return inner.onmessage;
    },
    set onmessage(handler) {
      inner.onmessage = handler;
    },
  };
}
