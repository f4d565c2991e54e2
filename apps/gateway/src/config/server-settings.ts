import { z } from 'zod';
import type { SettingDefinition } from './setting-definition.ts';
import { commaList, port, positiveInt } from './setting-schemas.ts';

/**
 * The HTTP server, the data directory and the web client: where Nexus listens, how long it waits
 * for slow clients, and who may open the web chat.
 * Part of the settings table (`settings.ts`), in its order.
 */
export const SERVER_SETTINGS = [
  {
    env: 'NEXUS_HOST',
    path: 'server.host',
    schema: z.string().min(1),
    defaultValue: '127.0.0.1',
    description: 'Interface the HTTP server binds to. Use 0.0.0.0 only behind a reverse proxy with TLS.',
    hint: 'set it to an IP address such as 127.0.0.1',
  },
  {
    env: 'NEXUS_PORT',
    path: 'server.port',
    schema: port,
    defaultValue: 8787,
    description:
      'HTTP port for the web chat, `/ws`, `/health`, `/ready` and `/metrics` (0 picks a free port).',
    hint: 'set it to a free TCP port between 0 and 65535, e.g. 8787',
  },
  {
    env: 'NEXUS_HTTP_HEADERS_TIMEOUT_MS',
    path: 'server.headersTimeoutMs',
    schema: z.coerce.number().int().min(1000).max(600_000),
    defaultValue: 10_000,
    description:
      'Longest time a client may take to send the request line and headers; slower connections are closed (a trickling client cannot hold a connection open).',
    hint: 'set it to milliseconds between 1000 and 600000, e.g. 10000',
  },
  {
    env: 'NEXUS_HTTP_REQUEST_TIMEOUT_MS',
    path: 'server.requestTimeoutMs',
    schema: z.coerce.number().int().min(1000).max(3_600_000),
    defaultValue: 30_000,
    description:
      'Longest time a client may take to send a whole request, body included (web-socket connections are not affected once open). At least `NEXUS_HTTP_HEADERS_TIMEOUT_MS`.',
    hint: 'set it to milliseconds between 1000 and 3600000, e.g. 30000',
  },
  {
    env: 'NEXUS_HTTP_KEEP_ALIVE_TIMEOUT_MS',
    path: 'server.keepAliveTimeoutMs',
    schema: z.coerce.number().int().min(0).max(600_000),
    defaultValue: 5000,
    description:
      'How long an idle keep-alive HTTP connection stays open between requests. Behind a reverse proxy that keeps upstream connections alive, make it longer than the proxy’s upstream idle timeout, so the proxy never reuses a connection the gateway is closing.',
    hint: 'set it to milliseconds between 0 and 600000, e.g. 5000',
  },
  {
    env: 'NEXUS_HTTP_MAX_CONNECTIONS',
    path: 'server.maxConnections',
    schema: z.coerce.number().int().min(1).max(1_000_000),
    defaultValue: 1024,
    description:
      'Most TCP connections the HTTP server holds at once, open web-chat sockets included; further connections are dropped at once instead of exhausting memory or file descriptors.',
    hint: 'set it to a positive integer such as 1024 (keep it below the process’s file-descriptor limit)',
  },
  {
    env: 'NEXUS_DATA_DIR',
    path: 'dataDir',
    schema: z.string().min(1),
    defaultValue: '.data',
    description: 'Directory for the SQLite files (sessions) and the generated web token.',
    hint: 'set it to a writable directory path',
  },
  {
    env: 'NEXUS_DATA_MIN_FREE_MB',
    path: 'dataMinFreeMb',
    schema: z.coerce.number().int().min(1).max(10_000_000),
    defaultValue: 512,
    description:
      "Free space (MiB) the data directory's volume should keep. Below it, `/ready` and `nexus doctor` report the volume nearly full (`/ready` stays ready); under 16 MiB they report it full and `/ready` answers 503, since SQLite can no longer store messages.",
    hint: 'use a whole number of MiB, e.g. 512',
  },
  {
    env: 'NEXUS_WEB_TOKEN',
    path: 'web.token',
    schema: z.string().regex(/^[A-Za-z0-9_-]{16,256}$/, 'expected 16–256 letters, digits, _ or -'),
    description:
      'Token the web client signs in with. When unset, one is generated on first start and kept in `<dataDir>/web-token`.',
    hint: 'use at least 16 characters from A–Z, a–z, 0–9, _ and -, or unset it to have one generated',
    secret: true,
  },
  {
    env: 'NEXUS_WEB_ALLOWED_ORIGINS',
    path: 'web.allowedOrigins',
    schema: commaList,
    description:
      'Comma-separated browser origins allowed to open `/ws` (default: the gateway’s own address). Blocks cross-site WebSocket hijacking.',
    hint: 'list full origins such as https://chat.example.com, separated by commas',
  },
  {
    env: 'NEXUS_WEB_MESSAGES_PER_MINUTE',
    path: 'web.messagesPerMinute',
    schema: positiveInt,
    defaultValue: 30,
    description: 'Messages one web-socket connection may send per minute before it is told to slow down.',
    hint: 'set it to a positive integer such as 30',
  },
  {
    env: 'NEXUS_WEB_MAX_PAYLOAD_BYTES',
    path: 'web.maxPayloadBytes',
    schema: z.coerce
      .number()
      .int()
      .min(1024)
      .max(16 * 1024 * 1024),
    defaultValue: 64 * 1024,
    description: 'Largest web-socket frame accepted; bigger frames close the connection with 1009.',
    hint: 'set it to a byte count between 1024 and 16777216',
  },
  {
    env: 'NEXUS_WEB_REPLAY_MAX_BYTES',
    path: 'web.replayMaxBytes',
    schema: z.coerce
      .number()
      .int()
      .min(1024 * 1024)
      .max(1024 * 1024 * 1024),
    defaultValue: 64 * 1024 * 1024,
    description:
      'Bytes of recent reply frames kept across all web conversations, so a web client that was away gets what it missed when it reconnects (oldest dropped first). Lower it on a small machine that serves many web conversations.',
    hint: 'set it to a byte count between 1048576 (1 MiB) and 1073741824 (1 GiB)',
  },
] as const satisfies readonly SettingDefinition[];
