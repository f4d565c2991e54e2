import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load-config.ts';

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('starts with defaults and no model provider when nothing is set', () => {
    const config = loadConfig({ env: {} });
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 8787,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5000,
      maxConnections: 1024,
    });
    expect(config.model.provider).toBeUndefined();
    expect(config.core.maxConcurrentTurns).toBe(32);
    expect(config.web.maxPayloadBytes).toBe(65_536);
    expect(config.web.replayMaxBytes).toBe(64 * 1024 * 1024);
    expect(config.telegram).toEqual({});
    expect(config.whatsapp).toEqual({ enabled: false });
  });

  it('names the variable, the file key and the fix for a bad value', () => {
    const problems = problemsOf(() => loadConfig({ env: { NEXUS_PORT: 'eighty' } }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('NEXUS_PORT');
    expect(problems[0]).toContain('server.port');
    expect(problems[0]).toContain('"eighty"');
    expect(problems[0]).toContain('free TCP port');
  });

  it('refuses a web replay budget under 1 MiB, saying what to set', () => {
    const problems = problemsOf(() => loadConfig({ env: { NEXUS_WEB_REPLAY_MAX_BYTES: '4096' } }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('NEXUS_WEB_REPLAY_MAX_BYTES');
    expect(problems[0]).toContain('web.replayMaxBytes');
    expect(problems[0]).toContain('1048576 (1 MiB)');
  });

  it('runs model calls on the main thread by default; 1 puts them on a model thread, a bad count is refused', () => {
    expect(loadConfig({ env: {} }).model.threads).toBe(0);
    expect(loadConfig({ env: { NEXUS_MODEL_THREADS: '1' } }).model.threads).toBe(1);
    for (const bad of ['-1', 'two', '1.5', '17']) {
      const problems = problemsOf(() => loadConfig({ env: { NEXUS_MODEL_THREADS: bad } }));
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain('NEXUS_MODEL_THREADS');
      expect(problems[0]).toContain('model.threads');
      expect(problems[0]).toContain('from 0 (model requests on the main thread) to 16');
    }
  });

  it('reports every bad key at once', () => {
    const problems = problemsOf(() =>
      loadConfig({ env: { NEXUS_PORT: '-1', NEXUS_LOG_LEVEL: 'loud', NEXUS_MODEL_PROVIDER: 'skynet' } }),
    );
    expect(problems.map((problem) => problem.split(' ')[0])).toEqual([
      'NEXUS_PORT',
      'NEXUS_MODEL_PROVIDER',
      'NEXUS_LOG_LEVEL',
    ]);
  });

  it('requires what each provider needs', () => {
    expect(
      problemsOf(() =>
        loadConfig({ env: { NEXUS_MODEL_PROVIDER: 'openai-compatible', NEXUS_MODEL: 'm' } }),
      )[0],
    ).toContain('NEXUS_MODEL_BASE_URL');
    expect(
      problemsOf(() => loadConfig({ env: { NEXUS_MODEL_PROVIDER: 'anthropic', NEXUS_MODEL: 'm' } }))[0],
    ).toContain('NEXUS_MODEL_API_KEY');
    expect(problemsOf(() => loadConfig({ env: { NEXUS_MODEL: 'gpt' } }))[0]).toContain(
      'NEXUS_MODEL_PROVIDER',
    );
  });

  it('never shows a secret in an error', () => {
    const problems = problemsOf(() => loadConfig({ env: { NEXUS_WEB_TOKEN: 'short secret!' } }));
    expect(problems[0]).toContain('NEXUS_WEB_TOKEN');
    expect(problems[0]).not.toContain('short secret!');
  });

  it('reads a JSON file, lets the environment override it, and rejects unknown keys', () => {
    const files: Record<string, string> = {
      '/etc/nexus.json': JSON.stringify({ server: { port: 9000, host: '0.0.0.0' }, log: { level: 'debug' } }),
      '/etc/typo.json': JSON.stringify({ server: { prot: 9000 } }),
      '/etc/broken.json': '{ "server": ',
    };
    const readFile = (path: string) => {
      const content = files[path];
      if (content === undefined) throw new Error('ENOENT');
      return content;
    };
    const config = loadConfig({ env: { NEXUS_PORT: '9100' }, configFile: '/etc/nexus.json', readFile });
    expect(config.server).toMatchObject({ host: '0.0.0.0', port: 9100 });
    expect(config.log.level).toBe('debug');
    expect(problemsOf(() => loadConfig({ env: {}, configFile: '/etc/typo.json', readFile }))[0]).toContain(
      'unknown key "server.prot"',
    );
    expect(problemsOf(() => loadConfig({ env: {}, configFile: '/etc/broken.json', readFile }))[0]).toContain(
      'not valid JSON',
    );
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() =>
      loadConfig({ env: { NEXUS_HTTP_HEADERS_TIMEOUT_MS: '20000', NEXUS_HTTP_REQUEST_TIMEOUT_MS: '10000' } }),
    ).toThrow(/NEXUS_HTTP_HEADERS_TIMEOUT_MS \(20000\) is longer than NEXUS_HTTP_REQUEST_TIMEOUT_MS/);
  });

  it('puts NEXUS_REDIS_PASSWORD (or its _FILE) into the Redis URL', () => {
    const config = loadConfig({
      env: {
        NEXUS_REDIS_URL: 'redis://redis:6379',
        NEXUS_REDIS_PASSWORD_FILE: '/run/secrets/redis-password',
      },
      readFile: () => 'p@ss:word/1\n',
    });
    expect(config.redis.url).toBe('redis://:p%40ss%3Aword%2F1@redis:6379');
    expect(decodeURIComponent(new URL(config.redis.url!).password)).toBe('p@ss:word/1');
    expect(() =>
      loadConfig({ env: { NEXUS_REDIS_URL: 'redis://:one@redis:6379', NEXUS_REDIS_PASSWORD: 'two' } }),
    ).toThrow(/NEXUS_REDIS_URL carries a password and NEXUS_REDIS_PASSWORD sets a different one/);
  });

  it('names a missing or unreadable secret file and says how to fix it', () => {
    const failing = (code: string) => (path: string) => {
      throw Object.assign(new Error(`${code}: cannot open '${path}'`), { code });
    };
    const env = {
      NEXUS_REDIS_URL: 'redis://redis:6379',
      NEXUS_REDIS_PASSWORD_FILE: '/run/secrets/redis-password',
    };
    const [missing] = problemsOf(() => loadConfig({ env, readFile: failing('ENOENT') }));
    expect(missing).toContain('NEXUS_REDIS_PASSWORD_FILE: cannot read /run/secrets/redis-password');
    expect(missing).toContain('create secrets/redis-password beside docker-compose.yml');
    const [unreadable] = problemsOf(() => loadConfig({ env, readFile: failing('EACCES') }));
    expect(unreadable).toContain(
      'sudo chown root:8787 secrets/redis-password && sudo chmod 440 secrets/redis-password',
    );
    const elsewhere = {
      NEXUS_REDIS_URL: 'redis://redis:6379',
      NEXUS_REDIS_PASSWORD_FILE: '/etc/nexus/redis',
    };
    expect(problemsOf(() => loadConfig({ env: elsewhere, readFile: failing('ENOENT') }))[0]).toContain(
      'fix the path',
    );
  });

  it('reads secrets from <NAME>_FILE', () => {
    const config = loadConfig({
      env: {
        NEXUS_MODEL_PROVIDER: 'openai',
        NEXUS_MODEL: 'gpt-4o-mini',
        NEXUS_MODEL_API_KEY_FILE: '/run/secrets/key',
      },
      readFile: () => 'sk-from-file\n',
    });
    expect(config.model.apiKey).toBe('sk-from-file');
  });
});
