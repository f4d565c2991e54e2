#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { processOutput } from './cli/command-output.ts';
import {
  ADMIN_USAGE,
  isAdminCommand,
  MEMORY_ADMIN_ACTIONS,
  MEMORY_ADMIN_USAGE,
} from './cli/command-table.ts';
import { createLogger, whenLogsWritten } from './composition/create-logger.ts';
import { assertRoleConfig } from './composition/distributed-runs.ts';
import { installCrashPolicy } from './composition/install-crash-policy.ts';
import { ConfigError, loadConfig } from './config/load-config.ts';
import { SETTINGS } from './config/settings.ts';
import { platformIdPseudonymiser } from './data-dir/platform-id-pseudonym.ts';
import { assertMemoryServiceConfig } from './roles/start-memory-service.ts';
import { flushTracesAfter } from './tracing/flush-traces-after.ts';
import { startTracing } from './tracing/start-tracing.ts';

// Each command and role below is a dynamic import: a process loads the code of the one it runs
// (`start` never parses the admin commands, the worker never the gateway), which keeps start-up
// time and resident memory down (docs/deployment.md, "Memory").

const USAGE = `Usage: nexus <command> [options]

Commands:
  start            Run the gateway (web chat on http://127.0.0.1:8787 by default)
  config check     Validate the configuration and print what is wrong, key by key
${ADMIN_USAGE}
  memory serve     The memory HTTP API for NEXUS_MEMORY_MODE=http (same as start --role memory)
  memory list|add|delete|export|import
                   Read and edit memories, global ones included (\`nexus memory\` for details)
  memory reindex [--to none]
                   Re-embed all memories with the configured embedder (or drop vectors)
  help             Show this help

Options:
  --config <file>  JSON config file (same as NEXUS_CONFIG); environment variables override it
  --port <port>    Same as NEXUS_PORT
  --host <host>    Same as NEXUS_HOST
  --role <role>    all (default), gateway, worker or memory; same as NEXUS_ROLE (see docs/deployment.md)

Settings: ${SETTINGS.map((setting) => setting.env).join(', ')}
`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      role: { type: 'string' },
      to: { type: 'string' },
      help: { type: 'boolean' },
      fix: { type: 'boolean' },
      global: { type: 'boolean' },
      user: { type: 'string' },
      scope: { type: 'string' },
      category: { type: 'string' },
      source: { type: 'string' },
      format: { type: 'string' },
      limit: { type: 'string' },
    },
  });
  const command = positionals.join(' ') || 'help';
  if (values.help || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const env = { ...process.env };
  if (values.port) env.NEXUS_PORT = values.port;
  if (values.host) env.NEXUS_HOST = values.host;
  if (values.role) env.NEXUS_ROLE = values.role;

  if (positionals[0] === 'memory' && positionals[1] === 'serve') {
    if (positionals.length > 2) {
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
      return 64;
    }
    env.NEXUS_ROLE = 'memory';
  } else if (positionals[0] === 'memory' && MEMORY_ADMIN_ACTIONS.includes(positionals[1] ?? '')) {
    const { memoryAdminCommand } = await import('./cli/memory-admin-command.ts');
    const code = await memoryAdminCommand({
      args: positionals.slice(1),
      flags: values,
      config: { env, ...(values.config ? { configFile: values.config } : {}) },
      output: processOutput,
    });
    await processOutput.flush?.();
    return code;
  } else if (positionals[0] === 'memory') {
    if (positionals[1] === undefined || positionals[1] === 'help')
      process.stderr.write(
        `${MEMORY_ADMIN_USAGE}  nexus memory serve                The memory HTTP API (NEXUS_MEMORY_API_KEY)\n`,
      );
    const { memoryCommand } = await import('./cli/memory-reindex.ts');
    const code = await memoryCommand({
      args: positionals.slice(1),
      ...(values.to ? { to: values.to } : {}),
      config: { env, ...(values.config ? { configFile: values.config } : {}) },
      output: processOutput,
      interactive: process.stdout.isTTY === true,
    });
    await processOutput.flush?.();
    return code;
  }
  if (isAdminCommand(positionals[0])) {
    const { runAdminCommand } = await import('./cli/run-admin-command.ts');
    return runAdminCommand({
      args: positionals,
      fix: values.fix === true,
      config: { env, ...(values.config ? { configFile: values.config } : {}) },
    });
  }

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ env, ...(values.config ? { configFile: values.config } : {}) });
    assertRoleConfig(config);
    assertMemoryServiceConfig(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 78; // EX_CONFIG
    }
    throw error;
  }

  if (command === 'config check') {
    process.stdout.write('Configuration is valid.\n');
    return 0;
  }
  if (command !== 'start' && command !== 'memory serve') {
    process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
    return 64; // EX_USAGE
  }
  return runGateway(config);
}

async function runGateway(config: ReturnType<typeof loadConfig>): Promise<number> {
  const logger = createLogger(config.log, undefined, platformIdPseudonymiser(config.dataDir));
  // Whatever Nexus creates (data directory, SQLite files and their -wal/-shm, the web token, the
  // model cache) is the owner's alone, whatever umask the shell or the container started with.
  process.umask(0o077);
  let running: { close(): Promise<void> } | undefined;
  let resolveExit: (code: number) => void = () => undefined;
  const exitCode = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });
  installCrashPolicy({
    events: process,
    logger,
    close: () => running?.close(),
    deadlineMs: config.core.shutdownDeadlineMs,
    exit: (code) => resolveExit(code),
  });
  // A crash while starting ends the process too, without waiting for the start to finish.
  const startAndWait = (async () => {
    const tracing = await startTracing(config, config.role, logger);
    const traced = tracing ? { tracing } : {};
    if (config.role === 'worker') {
      const { startWorker } = await import('./roles/start-worker.ts');
      running = await startWorker({ config, logger, ...traced });
    } else if (config.role === 'memory') {
      const { startMemoryService } = await import('./roles/start-memory-service.ts');
      running = await startMemoryService({ config, logger });
    } else {
      const { startGateway } = await import('./start-gateway.ts');
      const gateway = await startGateway({ config, logger, ...traced });
      logger.info(
        { url: gateway.url, tokenFile: config.web.token ? undefined : `${config.dataDir}/web-token` },
        'web chat ready',
      );
      // The sign-in address goes to a terminal only (never into logs), after the log lines above
      // have been written: the pretty logger writes from a worker thread, and the address printed
      // first would scroll away among them.
      if (process.stdout.isTTY) {
        await whenLogsWritten(logger);
        process.stdout.write(`\n  Open ${gateway.url}/#token=${gateway.token}\n\n`);
      }
      running = gateway;
    }
    if (tracing) running = flushTracesAfter(running, tracing, logger);
    const started = running;

    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals += 1;
      if (signals > 1) {
        logger.warn({ signal }, 'second signal: exiting now');
        resolveExit(1);
        return;
      }
      logger.info({ signal }, 'shutting down');
      // A hard stop in case something refuses to close: never hang a container stop.
      setTimeout(() => {
        logger.error({}, 'shutdown took too long: exiting');
        resolveExit(1);
      }, config.core.shutdownDeadlineMs + 5000).unref();
      started.close().then(
        () => resolveExit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'error during shutdown');
          resolveExit(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    return exitCode;
  })();
  return Promise.race([exitCode, startAndWait]);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`nexus failed to start: ${describeStartFailure(error)}\n`);
    process.exit(1);
  },
);

/** A start failure in words a newcomer can act on: the busy port names the setting that moves it. */
function describeStartFailure(error: unknown): string {
  const { code, address, port } = (error ?? {}) as { code?: string; address?: string; port?: number };
  if (code === 'EADDRINUSE' && port !== undefined)
    return `${address ?? 'the address'}:${port} is already in use (another Nexus, or another program). Stop it, or choose another port with NEXUS_PORT (e.g. NEXUS_PORT=8788).`;
  return error instanceof Error ? error.message : String(error);
}
