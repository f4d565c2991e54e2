import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_EMBEDDING_MODELS } from '../../apps/gateway/src/composition/memory/detect-provider-embedder.ts';
import { SETTINGS } from '../../apps/gateway/src/config/settings.ts';
import {
  COMPOSE_VARIABLES,
  isGatewayOnlySetting,
  isMemoryServiceSetting,
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
  user?: string;
  cap_drop?: string[];
  cap_add?: string[];
  security_opt?: string[];
  read_only?: boolean;
  tmpfs?: string[];
  group_add?: string[];
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

  it('has the ollama profile pull the chat model and the embedding model Nexus asks for, healthy only with both', async () => {
    // No Ollama image can be pulled here: the service's own command and healthcheck run in a shell
    // against an `ollama` stand-in on PATH that keeps pulled models as files.
    const ollama = (await loadCompose()).compose.services.ollama!;
    const environment = Object.fromEntries(
      Object.entries(ollama.environment ?? {}).map(([name, value]) => [name, withDefaults(String(value))]),
    );
    expect(environment).toMatchObject({
      OLLAMA_MODEL: 'llama3.2:3b',
      OLLAMA_EMBEDDING_MODEL: DEFAULT_EMBEDDING_MODELS['openai-compatible'],
    });
    const bin = await mkdtemp(join(tmpdir(), 'nexus-ollama-'));
    try {
      const models = join(bin, 'models');
      await writeFile(
        join(bin, 'ollama'),
        `#!/bin/sh\nmkdir -p '${models}'\ncase "$1" in\n  serve|list) exit 0 ;;\n  pull) touch "${models}/$2" ;;\n  show) test -e "${models}/$2" ;;\n  *) exit 2 ;;\nesac\n`,
      );
      await chmod(join(bin, 'ollama'), 0o755);
      const shell = (script: string) =>
        run('/bin/sh', ['-c', script.replaceAll('$$', '$')], {
          env: { ...environment, PATH: `${bin}:${process.env.PATH}` },
        }).then(
          () => 'healthy',
          () => 'unhealthy',
        );
      const healthcheck = [ollama.healthcheck?.test].flat();
      expect(healthcheck[0]).toBe('CMD-SHELL');
      const healthy = () => shell(String(healthcheck[1]));
      expect(await healthy()).toBe('unhealthy');
      await shell('ollama pull "$OLLAMA_MODEL"');
      expect(await healthy(), 'the chat model alone').toBe('unhealthy');
      await rm(models, { recursive: true });

      expect(await shell([ollama.command].flat().join('\n'))).toBe('healthy');
      expect((await readdir(models)).sort()).toEqual(['llama3.2:3b', 'nomic-embed-text']);
      expect(await healthy()).toBe('healthy');
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
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

  it('gives the memory service only the settings it reads', async () => {
    const { compose } = await loadCompose();
    const memory = Object.keys(compose.services.memory?.environment ?? {});
    const expected = SETTINGS.filter(isMemoryServiceSetting).flatMap((setting) =>
      setting.secret ? [setting.env, `${setting.env}_FILE`] : [setting.env],
    );
    expect(memory.sort()).toEqual(expected.sort());
    // What it needs: its store, its embedder and the model endpoint the embedder falls back to.
    expect(memory).toEqual(
      expect.arrayContaining([
        'NEXUS_QDRANT_URL',
        'NEXUS_QDRANT_API_KEY_FILE',
        'NEXUS_EMBEDDING_MODEL',
        'NEXUS_EMBEDDING_API_KEY_FILE',
        'NEXUS_MODEL_BASE_URL',
        'NEXUS_MODEL_API_KEY_FILE',
        'NEXUS_MEMORY_API_KEY_FILE',
        // Redis's address and password only, for the replicas' per-person write lease.
        'NEXUS_REDIS_URL',
        'NEXUS_REDIS_PASSWORD_FILE',
      ]),
    );
    // What it never uses: the MCP servers' credentials, the transcription key, OpenTelemetry's
    // headers, Redis's other settings, the web chat, the chat platforms.
    expect(
      memory.filter((name) =>
        /^(NEXUS_(MCP|TRANSCRIPTION|WEB|METRICS|TELEGRAM|DISCORD|WHATSAPP)_|NEXUS_REDIS_(?!URL|PASSWORD|PREFIX)|OTEL_)/u.test(
          name,
        ),
      ),
    ).toEqual([]);
    expect(isMemoryServiceSetting({ env: 'NEXUS_MCP_SERVERS' })).toBe(false);
    expect(isMemoryServiceSetting({ env: 'OTEL_EXPORTER_OTLP_HEADERS' })).toBe(false);
    expect(isMemoryServiceSetting({ env: 'NEXUS_TRANSCRIPTION_API_KEY' })).toBe(false);
  });

  it('hardens every service: no capabilities but the few it names, no privilege gain, read-only where it can be', async () => {
    const { text, compose } = await loadCompose();
    const problems: string[] = [];
    for (const [name, service] of Object.entries(compose.services)) {
      if (JSON.stringify(service.cap_drop) !== '["ALL"]')
        problems.push(`${name}: cap_drop is ${service.cap_drop}`);
      if (!service.security_opt?.includes('no-new-privileges:true'))
        problems.push(`${name}: no no-new-privileges`);
    }
    expect(problems).toEqual([]);
    for (const name of ['nexus', 'worker', 'memory', 'redis', 'ollama']) {
      expect(compose.services[name]?.read_only, name).toBe(true);
    }
    // Redis and ollama start as root only to own their volume and drop to their user.
    for (const name of ['redis', 'ollama']) {
      expect(compose.services[name]?.cap_add?.sort(), name).toEqual(['CHOWN', 'SETGID', 'SETUID']);
    }
    const { ollama, whisper } = compose.services;
    const ollamaStart = [ollama?.entrypoint ?? []].flat().join('\n');
    expect(ollamaStart).toMatch(/^find \/home\/ollama\/\.ollama \\! -user 10001 -exec chown 10001:10001/m);
    expect(ollamaStart).toMatch(
      /^exec setpriv --reuid=10001 --regid=10001 --clear-groups env HOME=\/home\/ollama /m,
    );
    expect(ollama?.volumes).toEqual(['ollama-models:/home/ollama/.ollama']);
    expect(ollama?.tmpfs?.[0]).toMatch(/^\/tmp:/);
    // whisper keeps root and a writable root file system, for the reason written beside it.
    expect(whisper?.cap_add).toBeUndefined();
    expect(whisper?.read_only).toBeUndefined();
    const whisperBlock = text.slice(text.indexOf('\n  whisper:'), text.indexOf('\n    image: fedirz/'));
    expect(whisperBlock).toContain('under /root (mode 0700)');
    expect(whisperBlock).toContain('`uv run`');
  });

  it('lets only the services that read a secret into the secrets group, and documents no UID 1000 ownership', async () => {
    const { text, compose } = await loadCompose();
    for (const [name, service] of Object.entries(compose.services)) {
      const groups = (service.group_add ?? []).map(withDefaults);
      expect(groups, name).toEqual(secretNames(service).length > 0 ? ['8787'] : []);
    }
    expect(text).toContain('sudo chown root:8787 secrets/* && sudo chmod 440 secrets/*');
    for (const file of ['docker-compose.yml', 'README.md', 'docs/deployment.md']) {
      const content = await readFile(new URL(file, root), 'utf8');
      expect(content, file).not.toMatch(/chown 1000:/);
      expect(content, file).toContain('groupadd --system --gid 8787 nexus-secrets');
    }
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
    expect(resolved.services.nexus?.group_add).toEqual(['8787']);
  });
});
