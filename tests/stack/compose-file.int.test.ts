import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SETTINGS } from '../../apps/gateway/src/config/settings.ts';
import {
  COMPOSE_VARIABLES,
  isGatewayOnlySetting,
  renderEnvExample,
  withComposeEnvironment,
} from './env-example.ts';

// docker-compose.yml is checked the way an operator relies on it: every image pinned, state in
// named volumes, a healthcheck on every service, start order by health, every Nexus setting
// passed through and documented in .env.example, and Debian's docker-compose accepts the file.

const root = new URL('../../', import.meta.url);
const run = promisify(execFile);

interface ComposeService {
  image?: string;
  build?: unknown;
  profiles?: string[];
  command?: string[] | string;
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: { test?: string[] | string; disable?: boolean };
  depends_on?: Record<string, { condition?: string }>;
  entrypoint?: string[] | string;
  secrets?: Array<string | { source: string }>;
  logging?: { driver?: string; options?: Record<string, string> };
  container_name?: string;
  ports?: string[];
}

interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file?: string }>;
}

function secretNames(service: ComposeService | undefined): string[] {
  return (service?.secrets ?? []).map((secret) => (typeof secret === 'string' ? secret : secret.source));
}

/** Credentials a worker must never hold: the chat platforms' tokens and switches, the web token. */
const PLATFORM_VARIABLE = /^NEXUS_(TELEGRAM|DISCORD|WHATSAPP)_|^NEXUS_WEB_TOKEN(_FILE)?$/;

/** Compose interpolation with nothing set: `${NAME:-default}` → default, `${NAME}` → ''. */
function withDefaults(value: string): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g, (_match, _name, fallback) => fallback ?? '');
}

/** An image reference is pinned when it names a tag other than `latest`, or a digest. */
function pinningProblem(image: string): string | undefined {
  if (image.includes('@sha256:')) return undefined;
  const lastSegment = image.split('/').at(-1) ?? image;
  const tag = lastSegment.includes(':') ? lastSegment.split(':').at(-1) : undefined;
  if (!tag) return `image "${image}" has no tag`;
  if (tag === 'latest') return `image "${image}" uses latest`;
  return undefined;
}

async function loadCompose(): Promise<{ text: string; compose: ComposeFile }> {
  const text = await readFile(new URL('docker-compose.yml', root), 'utf8');
  return { text, compose: parse(text, { merge: true }) as ComposeFile };
}

async function findDockerCompose(): Promise<boolean> {
  try {
    await run('docker-compose', ['version']);
    return true;
  } catch {
    return false;
  }
}

describe('docker-compose.yml', () => {
  it('pins every image to a tag that is not latest', async () => {
    const { compose } = await loadCompose();
    const problems: string[] = [];
    for (const [name, service] of Object.entries(compose.services)) {
      if (!service.image) problems.push(`${name}: no image`);
      else {
        const problem = pinningProblem(withDefaults(service.image));
        if (problem) problems.push(`${name}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
    expect(pinningProblem('redis')).toContain('no tag');
    expect(pinningProblem('qdrant/qdrant:latest')).toContain('latest');
    expect(pinningProblem('localhost:5000/nexus')).toContain('no tag');
  });

  it('keeps state in named volumes and gives every service a healthcheck', async () => {
    const { compose } = await loadCompose();
    const declared = Object.keys(compose.volumes ?? {});
    const problems: string[] = [];
    for (const [name, service] of Object.entries(compose.services)) {
      const test = service.healthcheck?.test;
      if (!test || service.healthcheck?.disable || (Array.isArray(test) && test[0] === 'NONE'))
        problems.push(`${name}: no healthcheck`);
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0] ?? '';
        if (!declared.includes(source)) problems.push(`${name}: volume "${volume}" is not a named volume`);
      }
    }
    expect(problems).toEqual([]);
    for (const stateful of ['nexus', 'memory', 'redis', 'qdrant', 'ollama', 'whisper']) {
      expect(compose.services[stateful]?.volumes?.length, stateful).toBeGreaterThan(0);
    }
  });

  it('starts Nexus after Redis and the memory service (after Qdrant) are healthy, with Redis keeping an append-only file', async () => {
    const { compose } = await loadCompose();
    const { nexus, worker, redis, memory } = compose.services;
    for (const service of [nexus, worker]) {
      expect(service?.depends_on).toMatchObject({
        redis: { condition: 'service_healthy' },
        memory: { condition: 'service_healthy' },
      });
      // Gateway and workers reach memory only through the memory service, never Qdrant itself.
      expect(service?.environment).toMatchObject({
        NEXUS_MEMORY_MODE: 'http',
        NEXUS_MEMORY_URL: 'http://memory:8787',
        NEXUS_MEMORY_API_KEY_FILE: '/run/secrets/memory-api-key',
        NEXUS_QDRANT_URL: '',
      });
    }
    expect(memory?.profiles).toBeUndefined();
    expect(memory?.command).toEqual(['memory', 'serve']);
    expect(memory?.depends_on).toMatchObject({
      qdrant: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    // Scaled like the workers (`--scale memory=2`): nothing that names one container or takes one host port.
    expect(memory?.container_name).toBeUndefined();
    expect(memory?.ports).toBeUndefined();
    expect(memory?.environment).toMatchObject({
      NEXUS_MEMORY_MODE: 'in-process',
      NEXUS_MEMORY_API_KEY_FILE: '/run/secrets/memory-api-key',
    });
    expect(withDefaults(memory?.environment?.NEXUS_QDRANT_URL ?? '')).toBe('http://qdrant:6333');
    expect(nexus?.profiles).toBeUndefined();
    expect(nexus?.command).toEqual(['start', '--role', 'all']);
    expect(worker?.profiles).toEqual(['workers']);
    expect(worker?.command).toEqual(['start', '--role', 'worker']);
    expect(compose.services.ollama?.profiles).toEqual(['ollama']);
    expect(compose.services.whisper?.profiles).toEqual(['whisper']);
    expect([redis?.command ?? []].flat().join(' ')).toContain('--appendonly yes');
  });

  it('passes every Nexus setting through, and documents every variable in .env.example', async () => {
    const { text, compose } = await loadCompose();
    const regenerate = 'regenerate with `node tests/stack/env-example.ts --write`';
    expect(text, regenerate).toBe(withComposeEnvironment(text));
    const environment = Object.keys(compose.services.nexus?.environment ?? {});
    for (const setting of SETTINGS) {
      if (setting.env !== 'NEXUS_ROLE') expect(environment, regenerate).toContain(setting.env);
    }
    const gatewayOnly = SETTINGS.filter(isGatewayOnlySetting).map((setting) => setting.env);
    expect(gatewayOnly).toEqual(
      expect.arrayContaining(['NEXUS_TELEGRAM_BOT_TOKEN', 'NEXUS_DISCORD_BOT_TOKEN']),
    );
    const workerEnvironment = compose.services.worker?.environment ?? {};
    expect(
      Object.fromEntries(
        Object.entries(compose.services.nexus?.environment ?? {}).filter(
          ([name]) => !PLATFORM_VARIABLE.test(name),
        ),
      ),
    ).toEqual(workerEnvironment);

    const envExample = await readFile(new URL('.env.example', root), 'utf8');
    expect(envExample, regenerate).toBe(renderEnvExample());
    const referenced = new Set([...text.matchAll(/\$\{([A-Z0-9_]+)/g)].map((match) => match[1]!));
    const documented = new Set([...envExample.matchAll(/^# ([A-Z0-9_]+)=/gm)].map((match) => match[1]!));
    expect([...referenced].filter((name) => !documented.has(name))).toEqual([]);
    expect(COMPOSE_VARIABLES.map((variable) => variable.name)).toContain('COMPOSE_PROFILES');
  });

  it('mounts every secret file a service is told to read (the memory service once was not)', async () => {
    const { compose } = await loadCompose();
    const missing: string[] = [];
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        const secret = /^\/run\/secrets\/([^/]+)$/u.exec(withDefaults(String(value)))?.[1];
        if (secret && !secretNames(service).includes(secret))
          missing.push(`${name}: ${variable} → ${secret}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives workers no platform token, and Redis and Qdrant credentials from secrets', async () => {
    const { compose } = await loadCompose();
    const { nexus, worker, redis, qdrant } = compose.services;
    expect(Object.keys(worker?.environment ?? {}).filter((name) => PLATFORM_VARIABLE.test(name))).toEqual([]);
    expect(Object.keys(nexus?.environment ?? {})).toEqual(
      expect.arrayContaining([
        'NEXUS_TELEGRAM_BOT_TOKEN',
        'NEXUS_DISCORD_BOT_TOKEN',
        'NEXUS_WHATSAPP_ENABLED',
      ]),
    );
    for (const service of [nexus, worker]) {
      expect(secretNames(service).sort()).toEqual(['memory-api-key', 'redis-password']);
      expect(withDefaults(service?.environment?.NEXUS_REDIS_PASSWORD_FILE ?? '')).toBe(
        '/run/secrets/redis-password',
      );
    }
    const { memory } = compose.services;
    // Redis for the replicas' per-person write lease.
    expect(secretNames(memory).sort()).toEqual(['memory-api-key', 'qdrant-api-key', 'redis-password']);
    expect(withDefaults(memory?.environment?.NEXUS_REDIS_PASSWORD_FILE ?? '')).toBe(
      '/run/secrets/redis-password',
    );
    expect(withDefaults(memory?.environment?.NEXUS_QDRANT_API_KEY_FILE ?? '')).toBe(
      '/run/secrets/qdrant-api-key',
    );
    expect(Object.keys(memory?.environment ?? {}).filter((name) => PLATFORM_VARIABLE.test(name))).toEqual([]);
    expect(Object.keys(compose.secrets ?? {}).sort()).toEqual([
      'memory-api-key',
      'qdrant-api-key',
      'redis-password',
    ]);

    // Redis: a password from the secret (on stdin, not argv), a memory cap, and noeviction for BullMQ.
    expect(secretNames(redis)).toEqual(['redis-password']);
    const redisScript = [redis?.entrypoint ?? [], redis?.command ?? []].flat().join(' ');
    expect(redisScript).toMatch(
      /redis-server - .*<<EOF\s+requirepass \$\$\(cat \/run\/secrets\/redis-password\)/s,
    );
    expect(redisScript).toMatch(/--maxmemory "\$\$REDIS_MAXMEMORY" --maxmemory-policy noeviction/);
    expect(withDefaults(redis?.environment?.REDIS_MAXMEMORY ?? '')).toMatch(/^\d+[kmg]b$/);
    expect([redis?.healthcheck?.test ?? []].flat().join(' ')).toContain('REDISCLI_AUTH=');

    // Qdrant: the API key from the secret, set just before its own entrypoint.
    expect(secretNames(qdrant)).toEqual(['qdrant-api-key']);
    expect([qdrant?.entrypoint ?? [], qdrant?.command ?? []].flat().join(' ')).toContain(
      'QDRANT__SERVICE__API_KEY="$$(cat /run/secrets/qdrant-api-key)" exec ./entrypoint.sh',
    );
  });

  it('rotates the log of every service', async () => {
    const { compose } = await loadCompose();
    const problems: string[] = [];
    for (const [name, service] of Object.entries(compose.services)) {
      const { driver, options } = service.logging ?? {};
      if (driver !== 'json-file' || !options?.['max-size'] || !options['max-file'])
        problems.push(`${name}: logging is ${JSON.stringify(service.logging)}`);
    }
    expect(problems).toEqual([]);
  });

  it('passes `docker-compose config` (Debian docker-compose, no engine needed)', async () => {
    if (!(await findDockerCompose())) {
      if (process.env.NEXUS_SKIP_COMPOSE_CONFIG === '1') return;
      throw new Error(
        'docker-compose is not installed, so docker-compose.yml cannot be validated. Install it with `apt-get install -y docker-compose` (.ci/run does), or set NEXUS_SKIP_COMPOSE_CONFIG=1 to skip this check locally.',
      );
    }
    const { stdout } = await run('docker-compose', ['-f', 'docker-compose.yml', 'config'], {
      cwd: root.pathname,
      // Only the defaults in the file, not whatever .env or the shell of this machine holds.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    const resolved = parse(stdout) as ComposeFile;
    expect(Object.keys(resolved.services).sort()).toEqual([
      'memory',
      'nexus',
      'ollama',
      'qdrant',
      'redis',
      'whisper',
      'worker',
    ]);
    for (const [name, service] of Object.entries(resolved.services)) {
      expect(pinningProblem(service.image ?? ''), name).toBeUndefined();
    }
    expect(resolved.services.nexus?.environment?.NEXUS_REDIS_URL).toBe('redis://redis:6379');
    expect(resolved.services.nexus?.environment?.NEXUS_REDIS_PASSWORD_FILE).toBe(
      '/run/secrets/redis-password',
    );
    expect(
      Object.keys(resolved.services.worker?.environment ?? {}).filter((name) => PLATFORM_VARIABLE.test(name)),
    ).toEqual([]);
    expect(resolved.services.nexus?.environment).toHaveProperty('NEXUS_TELEGRAM_BOT_TOKEN');
    expect(resolved.services.redis?.logging?.options?.['max-size']).toBe('10m');
    expect(resolved.secrets?.['redis-password']?.file).toMatch(/secrets\/redis-password$/);
  });
});
