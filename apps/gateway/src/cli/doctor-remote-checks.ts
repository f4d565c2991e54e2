import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { type DoctorLine, describeNetworkError } from './doctor-line.ts';

const TIMEOUT_MS = 5000;

/** `GET <base URL>/models` of the configured provider: where, and with which credentials. */
export function modelsRequest(model: GatewayConfig['model']): {
  baseUrl: string;
  url: string;
  headers: Record<string, string>;
} {
  const { provider, apiKey } = model;
  const defaults = {
    openai: 'https://api.openai.com/v1',
    anthropic: 'https://api.anthropic.com/v1',
  } as const;
  const baseUrl = (
    model.baseUrl ?? (provider === 'openai-compatible' || !provider ? '' : defaults[provider])
  ).replace(/\/$/, '');
  const headers: Record<string, string> =
    provider === 'anthropic'
      ? { 'x-api-key': apiKey ?? '', 'anthropic-version': '2023-06-01' }
      : apiKey
        ? { authorization: `Bearer ${apiKey}` }
        : {};
  return { baseUrl, url: `${baseUrl}/models`, headers };
}

/** Whether the model provider answers, accepts the key and serves the configured model. */
export async function checkModel(config: GatewayConfig, fetchFunction: typeof fetch): Promise<DoctorLine> {
  const { provider, name } = config.model;
  if (!provider || !name) {
    return {
      status: 'warn',
      subject: 'model',
      message: 'no provider configured: the assistant answers with setup instructions only',
      fix: 'set NEXUS_MODEL_PROVIDER and NEXUS_MODEL (and NEXUS_MODEL_BASE_URL or NEXUS_MODEL_API_KEY), e.g. openai-compatible with http://127.0.0.1:11434/v1 for Ollama',
    };
  }
  const { baseUrl, url, headers } = modelsRequest(config.model);
  let response: Response;
  try {
    response = await fetchFunction(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    return {
      status: 'fail',
      subject: 'model',
      message: `cannot reach ${provider} at ${baseUrl} (${describeNetworkError(error)})`,
      fix:
        provider === 'openai-compatible'
          ? 'start the model server (e.g. `ollama serve`) or correct NEXUS_MODEL_BASE_URL'
          : 'check this machine’s internet access and proxy settings, or NEXUS_MODEL_BASE_URL',
    };
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    return {
      status: 'fail',
      subject: 'model',
      message: `${provider} at ${baseUrl} refused the API key (HTTP ${response.status})`,
      fix: 'check NEXUS_MODEL_API_KEY (or the file NEXUS_MODEL_API_KEY_FILE points at)',
    };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return {
      status: 'warn',
      subject: 'model',
      message: `${baseUrl} is reachable but GET /models answered HTTP ${response.status}, so the model id could not be checked`,
      fix: 'if replies fail, check NEXUS_MODEL_BASE_URL (it usually ends in /v1)',
    };
  }
  const body = (await response.json().catch(() => ({}))) as { data?: { id?: string }[] };
  const ids = (body.data ?? []).map((model) => model.id);
  if (ids.length > 0 && !ids.includes(name)) {
    return {
      status: 'fail',
      subject: 'model',
      message: `${provider} at ${baseUrl} does not serve "${name}" (it lists ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''})`,
      fix:
        provider === 'openai-compatible'
          ? `pull it (e.g. \`ollama pull ${name}\`) or set NEXUS_MODEL to one it lists`
          : 'set NEXUS_MODEL to a model id your account can use',
    };
  }
  return {
    status: 'ok',
    subject: 'model',
    message: `${provider} at ${baseUrl} is reachable and serves "${name}"`,
  };
}

/** Each configured platform: the credentials are accepted by the platform's API. */
export async function checkChannels(
  config: GatewayConfig,
  fetchFunction: typeof fetch,
): Promise<DoctorLine[]> {
  const lines: DoctorLine[] = [];
  if (config.telegram.botToken) {
    const root = config.telegram.apiRoot ?? 'https://api.telegram.org';
    lines.push(
      await checkCredential({
        subject: 'telegram',
        request: () =>
          fetchFunction(`${root}/bot${config.telegram.botToken}/getMe`, {
            signal: AbortSignal.timeout(TIMEOUT_MS),
          }),
        name: (body) => `@${(body as { result?: { username?: string } }).result?.username ?? '?'}`,
        rejectedFix:
          'the bot token was revoked or mistyped; get the current one from @BotFather (/token) and set NEXUS_TELEGRAM_BOT_TOKEN',
        unreachableFix: 'check internet access to api.telegram.org (or NEXUS_TELEGRAM_API_ROOT)',
      }),
    );
  }
  if (config.discord.botToken) {
    const api = (config.discord.apiUrl ?? 'https://discord.com/api').replace(/\/$/, '');
    lines.push(
      await checkCredential({
        subject: 'discord',
        request: () =>
          fetchFunction(`${api}/v10/users/@me`, {
            headers: { authorization: `Bot ${config.discord.botToken!.replace(/^Bot\s+/i, '')}` },
            signal: AbortSignal.timeout(TIMEOUT_MS),
          }),
        name: (body) => (body as { username?: string }).username ?? '?',
        rejectedFix:
          'reset the token in the Discord Developer Portal (Bot → Reset Token) and set NEXUS_DISCORD_BOT_TOKEN',
        unreachableFix: 'check internet access to discord.com (or NEXUS_DISCORD_API_URL)',
      }),
    );
  }
  if (config.whatsapp.enabled) {
    lines.push({
      status: 'ok',
      subject: 'whatsapp',
      message:
        'enabled; its link state is kept in whatsapp.sqlite (see `store` above) — if it is missing, scan the QR code the gateway logs on start',
    });
  }
  if (lines.length === 0)
    lines.push({ status: 'ok', subject: 'channels', message: 'only the web chat is configured' });
  return lines;
}

async function checkCredential(options: {
  subject: string;
  request: () => Promise<Response>;
  name: (body: unknown) => string;
  rejectedFix: string;
  unreachableFix: string;
}): Promise<DoctorLine> {
  let response: Response;
  try {
    response = await options.request();
  } catch (error) {
    return {
      status: 'fail',
      subject: options.subject,
      message: `cannot reach the API (${describeNetworkError(error)})`,
      fix: options.unreachableFix,
    };
  }
  if (response.status === 401 || response.status === 403 || response.status === 404) {
    await response.body?.cancel();
    return {
      status: 'fail',
      subject: options.subject,
      message: `the bot token was rejected (HTTP ${response.status})`,
      fix: options.rejectedFix,
    };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return {
      status: 'warn',
      subject: options.subject,
      message: `the API answered HTTP ${response.status}; try again later`,
    };
  }
  const body = await response.json().catch(() => ({}));
  return { status: 'ok', subject: options.subject, message: `token accepted (bot ${options.name(body)})` };
}

/** The job queue: embedded SQLite, or Redis answering PING (with the password from the URL). */
export async function checkQueue(config: GatewayConfig): Promise<DoctorLine> {
  const url = config.redis.url;
  if (!url) {
    return {
      status: 'ok',
      subject: 'queue',
      message: `embedded (SQLite in ${config.dataDir}); no Redis configured`,
    };
  }
  const parsed = new URL(url);
  const shown = `${parsed.hostname}:${parsed.port || '6379'}`;
  try {
    const reply = await redisPing(parsed);
    if (reply.startsWith('+PONG'))
      return { status: 'ok', subject: 'queue', message: `Redis at ${shown} answers` };
    const needsAuth = /NOAUTH|WRONGPASS|invalid password|invalid username/i.test(reply);
    return {
      status: 'fail',
      subject: 'queue',
      message: `Redis at ${shown} refused: ${reply.trim()}`,
      fix: needsAuth
        ? 'put the password in NEXUS_REDIS_URL, e.g. redis://:PASSWORD@host:6379'
        : 'check the Redis server’s log',
    };
  } catch (error) {
    return {
      status: 'fail',
      subject: 'queue',
      message: `cannot reach Redis at ${shown} (${describeNetworkError({ cause: error })})`,
      fix: 'start Redis (e.g. `docker compose up -d redis`) or correct NEXUS_REDIS_URL',
    };
  }
}

function redisPing(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    const port = Number(url.port || 6379);
    const socket: Socket =
      url.protocol === 'rediss:'
        ? connectTls({ host: url.hostname, port, servername: url.hostname })
        : connectTcp({ host: url.hostname, port });
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 5 s')), TIMEOUT_MS);
    const password = decodeURIComponent(url.password);
    const user = decodeURIComponent(url.username);
    let buffer = '';
    const expected = password ? 2 : 1;
    socket.once(url.protocol === 'rediss:' ? 'secureConnect' : 'connect', () => {
      if (password) socket.write(command(user ? ['AUTH', user, password] : ['AUTH', password]));
      socket.write(command(['PING']));
    });
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      const replies = buffer.split('\r\n').filter(Boolean);
      if (replies[0]?.startsWith('-')) finish(replies[0]);
      else if (replies.length >= expected) finish(replies[expected - 1] ?? '');
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    function finish(reply: string) {
      clearTimeout(timer);
      socket.end();
      resolve(reply);
    }
  });
}

function command(parts: string[]): string {
  return `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`;
}
