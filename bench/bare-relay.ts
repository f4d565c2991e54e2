// The least a chat relay can do, as the floor `pnpm bench:floor` holds a Nexus turn against: a
// web-socket frame in, one streamed chat completion from the model, each delta out as a frame,
// the whole text in a last frame. Nothing is stored, checked, remembered or traced, so the time
// a turn takes here is the sockets, the HTTP request and the SSE parsing that any gateway pays.
// `via: 'ai-sdk'` takes the same completion through the AI SDK's single-call primitive over the
// openai-compatible provider and the gateway's model fetch, as Nexus's agent does: the part of
// the floor that is the SDK's, measured beside the bare one.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { sdkTurnRelay } from '../apps/gateway/bench/sdk-relay-turn.ts';

export interface BareRelay {
  url: string;
  close(): Promise<void>;
}

interface RelayFrame {
  type: 'message';
  id: string;
  text: string;
}

interface RelayOptions {
  modelBaseUrl: string;
  model: string;
  /** How the completion is taken: by hand (`fetch`, the default) or through the AI SDK. */
  via?: 'fetch' | 'ai-sdk';
}

type TurnRelay = (socket: WebSocket, frame: RelayFrame) => Promise<void>;

export async function startBareRelay(options: RelayOptions): Promise<BareRelay> {
  const relayTurn: TurnRelay =
    options.via === 'ai-sdk'
      ? sdkTurnRelay({ baseUrl: options.modelBaseUrl, model: options.model })
      : (socket, frame) => fetchTurn(socket, frame, options);
  const server: Server = createServer((_request, response) => response.writeHead(404).end());
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket) => {
    socket.on('message', (data) => {
      let frame: RelayFrame;
      try {
        frame = JSON.parse(data.toString()) as RelayFrame;
      } catch {
        socket.send(JSON.stringify({ type: 'error', code: 'bad_frame' }));
        return;
      }
      relayTurn(socket, frame).catch((error: unknown) =>
        socket.send(JSON.stringify({ type: 'error', id: frame.id, message: String(error) })),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        server.close(() => resolve());
      }),
  };
}

async function fetchTurn(socket: WebSocket, frame: RelayFrame, options: RelayOptions): Promise<void> {
  const response = await fetch(`${options.modelBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: options.model,
      stream: true,
      messages: [{ role: 'user', content: frame.text }],
    }),
  });
  if (!response.ok || !response.body) throw new Error(`model answered ${response.status}`);
  const decoder = new TextDecoder();
  let buffered = '';
  let text = '';
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk, { stream: true });
    let boundary = buffered.indexOf('\n\n');
    while (boundary !== -1) {
      const event = buffered.slice(0, boundary);
      buffered = buffered.slice(boundary + 2);
      boundary = buffered.indexOf('\n\n');
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
      const delta = (JSON.parse(event.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> })
        .choices?.[0]?.delta?.content;
      if (!delta) continue;
      text += delta;
      socket.send(JSON.stringify({ type: 'delta', id: frame.id, text: delta }));
    }
  }
  socket.send(JSON.stringify({ type: 'end', id: frame.id, text }));
}
