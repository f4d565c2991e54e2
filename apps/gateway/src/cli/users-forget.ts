import { join } from 'node:path';
import {
  type AccessStore,
  createSqliteScheduleStore,
  createSqliteSessionStore,
  forgetPerson,
  parseIdentityKey,
} from '@nexus/core';
import { NexusError, silentLogger } from '@nexus/protocol';
import { openGatewayMediaStore } from '../composition/create-gateway-media.ts';
import { gatewayErasers } from '../composition/gateway-erasers.ts';
import { createGatewayMemory } from '../composition/memory/create-gateway-memory.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { privateFilePath } from '../data-dir/private-path.ts';
import { remindersEraser } from '../tools/reminders-eraser.ts';
import { openGatewayWebUploads } from '../web-uploads/create-gateway-web-uploads.ts';
import type { CommandOutput } from './command-output.ts';

/**
 * `nexus users forget PERSON`: what `/forget-me confirm` does, run by the owner (a person who
 * cannot write any more, a request by mail). It opens the same stores the gateway uses, so it
 * may run while the gateway does.
 */
export async function usersForgetCommand(options: {
  person: string;
  config: GatewayConfig;
  store: AccessStore;
  output: CommandOutput;
}): Promise<number> {
  const { config, store, output } = options;
  const identity = options.person.includes(':')
    ? store.identities.find(parseIdentityKey(options.person))
    : undefined;
  const userId = identity?.userId ?? options.person;
  if (!store.identities.person(userId)) {
    output.error(`No person or identity ${options.person} is known; \`nexus users list\` shows them.\n`);
    return 1;
  }
  const sessionStore = createSqliteSessionStore({
    path: privateFilePath(join(config.dataDir, 'sessions.sqlite')),
  });
  // Works on a store being re-indexed by the gateway (lexically, as it is), without re-indexing it too.
  const memory = await createGatewayMemory({
    config,
    logger: silentLogger,
    model: undefined,
    shortLived: true,
  });
  // Redis (ioredis and the agent transport) is imported only when one is configured.
  const agentRedis = config.redis.url ? await import('@nexus/agent-redis') : undefined;
  const redis =
    config.redis.url && agentRedis
      ? agentRedis.createRedisClient({
          url: config.redis.url,
          name: 'nexus-cli',
          logger: silentLogger,
          failFast: true,
        })
      : undefined;
  const media = openGatewayMediaStore(config);
  // The same file the gateway's reminders live in; SQLite's locking lets both have it open.
  const schedules = createSqliteScheduleStore({
    path: privateFilePath(join(config.dataDir, 'schedules.sqlite')),
    defaultTimeZone: config.time.defaultZone,
    now: Date.now,
  });
  try {
    const report = await forgetPerson({
      store,
      memory: memory.service,
      erasers: [
        ...gatewayErasers({
          sessionStore,
          memoryQueue: memory.jobQueue,
          media,
          webUploads: openGatewayWebUploads(config, media),
          ...(redis && agentRedis
            ? {
                redis: agentRedis.agentRunEraser({
                  queue: memory.jobQueue,
                  commands: redis,
                  prefix: config.redis.prefix,
                }),
              }
            : {}),
        }),
        remindersEraser(schedules),
      ],
      userId,
    });
    output.out(`Forgot person ${userId}:\n`);
    for (const { kind, count } of report.removed) output.out(`  ${kind}: ${count}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof NexusError)) throw error;
    output.error(`${error.message.replace('send /forget-me', 'run this command')}\n`);
    return 75; // EX_TEMPFAIL
  } finally {
    await memory.close();
    await sessionStore.close();
    schedules.close();
    redis?.disconnect();
  }
}
