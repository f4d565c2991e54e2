/**
 * Raw HTTP/1.1 requests that a hostile or broken client may send, for the HTTP surface test: odd
 * request targets, every method, bad headers, bad upgrades and bad bodies, at every route. Each
 * is bytes on a fresh TCP connection, exactly as it would arrive from the network.
 */
export interface HttpAttack {
  name: string;
  /** Sent in order; a number is a pause (milliseconds) between parts, for trickled requests. */
  parts: Array<string | Buffer | number>;
  /** Half-close the connection after the last part (a client that stops sending). */
  endAfterSend?: boolean;
}

export interface AttackTargets {
  token: string;
  /** The configured Telegram webhook path and secret. */
  telegramPath: string;
  telegramSecret: string;
  /** A built web asset, e.g. /assets/index-abc.js */
  assetPath: string;
}

const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'BREW',
  'get',
  'G\u00c9T',
];

/** Targets that each broke `new URL(target, base)` or try to leave the web root. */
const ODD_TARGETS = [
  '//',
  '//etc/passwd',
  '///health',
  '//@',
  '//:@/',
  '//x:99999/',
  '//[::1/',
  '/\\\\evil.example/',
  'http://x',
  'http://x/health',
  'http://[::1/',
  'http://user:pass@x:0/',
  'https://x:65536/',
  'file:///etc/passwd',
  '*',
  'x',
  '?x=1',
  '/%E0%A4%A',
  '/%',
  '/%zz',
  '/%00',
  '/index.html%00.js',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/%2e%2e%2f%2e%2e%2fpackage.json',
  '/..%5c..%5cpackage.json',
  '/..%2f..%2f..%2fpackage.json',
  '/../../package.json',
  '/../../../../etc/passwd',
  '/assets/../../../package.json',
  '/assets/..%2f..%2f..%2fpackage.json',
  '/assets/%2e%2e/%2e%2e/%2e%2e/package.json',
  '/.%2e/.%2e/.%2e/package.json',
  '/%252e%252e/%252e%252e/package.json',
  '/..\\..\\..\\package.json',
  '/assets\\..\\..\\..\\package.json',
  '/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json',
  '/api/channels/%E0%A4%A/relink',
  '/api/channels/%/relink',
  '/api/channels/..%2f..%2f/relink',
  '/api/pairing/%E0%A4%A',
  '/api/memory/%E0%A4%A',
  '/api/memory/..%2f..%2fexport',
  `/${'a'.repeat(8000)}`,
];

function request(
  method: string,
  target: string,
  headers: Array<[string, string]> = [],
  body?: string | Buffer,
): string | Buffer {
  const hasHost = headers.some(([name]) => name.toLowerCase() === 'host');
  const lines = [`${method} ${target} HTTP/1.1`, ...(hasHost ? [] : ['Host: 127.0.0.1'])];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  lines.push('Connection: close', '', '');
  const head = lines.join('\r\n');
  if (body === undefined) return head;
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body)]);
}

/** Every route the gateway serves, with what a legitimate caller would send it. */
export function gatewayRoutes(
  targets: AttackTargets,
): Array<{ path: string; label?: string; headers: Array<[string, string]> }> {
  const bearer: [string, string] = ['Authorization', `Bearer ${targets.token}`];
  return [
    { path: '/', headers: [] },
    { path: '/index.html', headers: [] },
    { path: targets.assetPath, headers: [] },
    { path: '/health', headers: [] },
    { path: '/ready', headers: [] },
    { path: '/metrics', headers: [] },
    { path: '/ws', headers: [bearer] },
    { path: `/ws?token=${targets.token}`, label: '/ws?token=…', headers: [] },
    { path: '/api/pairing', headers: [bearer] },
    { path: '/api/pairing/approve', headers: [bearer] },
    { path: '/api/pairing/reject', headers: [] },
    { path: '/api/channels', headers: [bearer] },
    { path: '/api/channels/whatsapp/relink', headers: [bearer] },
    { path: '/api/channels/nope/relink', headers: [] },
    { path: '/api/memory', headers: [bearer, ['X-Nexus-Client', 'attacker']] },
    { path: '/api/memory/export', headers: [bearer, ['X-Nexus-Client', 'attacker']] },
    { path: '/api/memory/00000000-0000-4000-8000-000000000001', headers: [bearer, ['X-Nexus-Client', 'a']] },
    { path: '/api/memory', label: '/api/memory (no client)', headers: [bearer] },
    { path: targets.telegramPath, headers: [['X-Telegram-Bot-Api-Secret-Token', targets.telegramSecret]] },
    { path: targets.telegramPath, label: `${targets.telegramPath} (no secret)`, headers: [] },
    { path: '/no/such/route', headers: [] },
  ];
}

export function httpAttacks(targets: AttackTargets): HttpAttack[] {
  const attacks: HttpAttack[] = [];
  const add = (name: string, ...parts: HttpAttack['parts']) => attacks.push({ name, parts });
  const routes = gatewayRoutes(targets);
  const bearer: [string, string] = ['Authorization', `Bearer ${targets.token}`];

  for (const method of ['GET', 'POST', 'OPTIONS', 'HEAD']) {
    for (const target of ODD_TARGETS)
      add(`${method} ${target.slice(0, 60)}`, request(method, target, [bearer]));
  }
  for (const route of routes) {
    const label = route.label ?? route.path;
    for (const method of METHODS) {
      add(`${method} ${label}`, request(method, route.path, route.headers));
      add(`${method} /${label}`, request(method, `/${route.path}`, route.headers));
      add(`${method} http://x${label}`, request(method, `http://x${route.path}`, route.headers));
    }
    const json = '{"code":"ABCD1234"}';
    const withBody: Array<[string, string]> = [...route.headers, ['Content-Type', 'application/json']];
    add(
      `POST ${label} with a body`,
      request('POST', route.path, [...withBody, ['Content-Length', String(json.length)]], json),
    );
    add(
      `POST ${label} with invalid JSON`,
      request('POST', route.path, [...withBody, ['Content-Length', '5']], '{"a":'),
    );
    add(
      `POST ${label} with JSON null`,
      request('POST', route.path, [...withBody, ['Content-Length', '4']], 'null'),
    );
    add(
      `POST ${label} with an invalid UTF-8 body`,
      request(
        'POST',
        route.path,
        [...withBody, ['Content-Length', '4']],
        Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
      ),
    );
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61);
    add(
      `POST ${label} with a 3 MiB body`,
      request('POST', route.path, [...withBody, ['Content-Length', String(big.length)]], big),
    );
    add(
      `POST ${label} with a 3 MiB chunked body`,
      request('POST', route.path, [...withBody, ['Transfer-Encoding', 'chunked']]),
      `${big.length.toString(16)}\r\n`,
      big,
      '\r\n0\r\n\r\n',
    );
    attacks.push({
      name: `POST ${label} with a truncated body`,
      parts: [request('POST', route.path, [...withBody, ['Content-Length', '100']], '{"code":')],
      endAfterSend: true,
    });
    add(
      `POST ${label} with a bad chunk`,
      request('POST', route.path, [...withBody, ['Transfer-Encoding', 'chunked']]),
      'zz\r\nnot hex\r\n0\r\n\r\n',
    );
    add(
      `POST ${label} with Content-Length and Transfer-Encoding`,
      request(
        'POST',
        route.path,
        [...withBody, ['Content-Length', '4'], ['Transfer-Encoding', 'chunked']],
        'null',
      ),
    );
    add(
      `POST ${label} with a negative Content-Length`,
      request('POST', route.path, [...withBody, ['Content-Length', '-1']], 'null'),
    );
    add(
      `GET ${label} with a duplicated Host`,
      request('GET', route.path, [
        ['Host', 'a'],
        ['Host', 'b'],
      ]),
    );
    add(`GET ${label} with a garbage Host`, request('GET', route.path, [['Host', '::::/\\@@']]));
    add(`GET ${label} without a Host`, `GET ${route.path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
    add(`GET ${label} as HTTP/1.0`, `GET ${route.path} HTTP/1.0\r\n\r\n`);
    add(`GET ${label} as HTTP/9.9`, `GET ${route.path} HTTP/9.9\r\nHost: x\r\n\r\n`);
    add(
      `GET ${label} with a header without a colon`,
      `GET ${route.path} HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n`,
    );
    add(`GET ${label} with a 64 KiB header`, request('GET', route.path, [['X-Big', 'b'.repeat(65_536)]]));
    add(
      `GET ${label} with 500 headers`,
      request(
        'GET',
        route.path,
        Array.from({ length: 500 }, (_, index): [string, string] => [`X-H${index}`, 'v']),
      ),
    );
    add(
      `GET ${label} with odd Authorization and Origin`,
      request('GET', route.path, [
        ['Authorization', 'Bearer \u00ff\u00fe'],
        ['Origin', 'null'],
        ['Cookie', '%%%'],
      ]),
    );
    add(`GET ${label} with a bare LF`, `GET ${route.path} HTTP/1.1\nHost: x\n\n`);
    // Upgrades on every route: missing, garbage and wrong keys, odd origins and protocols.
    const upgrade = (extra: Array<[string, string]>): Array<[string, string]> => [
      ...route.headers,
      ['Upgrade', 'websocket'],
      ['Connection', 'Upgrade'],
      ...extra,
    ];
    const upgradeRequest = (extra: Array<[string, string]>, method = 'GET') => {
      const head = request(method, route.path, upgrade(extra))
        .toString()
        .replace('Connection: close\r\n', '');
      return head;
    };
    add(`upgrade ${label} without a key`, upgradeRequest([['Sec-WebSocket-Version', '13']]));
    add(
      `upgrade ${label} with a garbage key`,
      upgradeRequest([
        ['Sec-WebSocket-Version', '13'],
        ['Sec-WebSocket-Key', '!!!not base64!!!'],
      ]),
    );
    add(
      `upgrade ${label} with version 99`,
      upgradeRequest([
        ['Sec-WebSocket-Version', '99'],
        ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
      ]),
    );
    add(
      `upgrade ${label} with a garbage origin and protocol`,
      upgradeRequest([
        ['Sec-WebSocket-Version', '13'],
        ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
        ['Origin', 'http://[::1'],
        ['Sec-WebSocket-Protocol', ',,,\u00ff'],
        ['Sec-WebSocket-Extensions', 'permessage-deflate; client_max_window_bits=99'],
      ]),
    );
    add(
      `upgrade POST ${label}`,
      upgradeRequest(
        [
          ['Sec-WebSocket-Version', '13'],
          ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
        ],
        'POST',
      ),
    );
    add(
      `upgrade ${label} followed by garbage frames`,
      upgradeRequest([
        ['Sec-WebSocket-Version', '13'],
        ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
      ]),
      Buffer.from([0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 1, 2, 3]),
    );
    add(
      `upgrade to h2c on ${label}`,
      request('GET', route.path, [
        ['Upgrade', 'h2c'],
        ['HTTP2-Settings', '%%'],
      ]),
    );
  }
  for (const target of ['//ws', '/ws/', 'http://x/ws', '/%77s', '//', '*']) {
    add(
      `upgrade ${target}`,
      `GET ${target} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${targets.token}\r\n\r\n`,
    );
  }
  add('CONNECT', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n');
  add('PRI (HTTP/2 preface)', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  add(
    'TLS hello on plain HTTP',
    Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]),
  );
  add('binary noise', Buffer.from(Array.from({ length: 512 }, (_, index) => (index * 97) % 256)));
  add('empty request line', '\r\n\r\n');
  add('NUL in the request line', 'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n');
  add(
    'pipelined odd requests',
    'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET // HTTP/1.1\r\nHost: x\r\n\r\nGET /%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  );
  // Slow senders: the request head arrives a few bytes at a time.
  const trickled = 'GET // HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\nConnection: close\r\n\r\n';
  const slow: HttpAttack['parts'] = [];
  for (let index = 0; index < trickled.length; index += 8) slow.push(trickled.slice(index, index + 8), 20);
  attacks.push({ name: 'trickled GET //', parts: slow });
  const slowUpgrade = `GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${'A'.repeat(8)}\r\n\r\n`;
  const slowUpgradeParts: HttpAttack['parts'] = [];
  for (let index = 0; index < slowUpgrade.length; index += 10)
    slowUpgradeParts.push(slowUpgrade.slice(index, index + 10), 15);
  attacks.push({ name: 'trickled upgrade with a short key', parts: slowUpgradeParts });
  return attacks;
}
