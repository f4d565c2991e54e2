import { join } from 'node:path';
import {
  type AccessControl,
  type AccessMemoryPort,
  type AccessStore,
  createAccessControl,
  createAccessStore,
  type ExtraCommands,
  type NotifyConversation,
  type PersonEraser,
} from '@nexus/core';
import type { Logger } from '@nexus/protocol';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { privateFilePath } from '../data-dir/private-path.ts';

/** The access database of a data directory; the gateway and the owner's CLI both open it. */
export function accessStorePath(dataDir: string): string {
  return join(dataDir, 'access.sqlite');
}

export function openAccessStore(dataDir: string): AccessStore {
  return createAccessStore({ path: privateFilePath(accessStorePath(dataDir)) });
}

/**
 * Access control from the gateway settings: a DM policy per channel (web `open` by default, since
 * the web chat already needs the gateway token), allowlists and rate limits. Web messages skip the
 * rate limits unless `NEXUS_RATE_LIMIT_WEB` is set; each web connection is limited on its own.
 */
export function createGatewayAccess(options: {
  config: GatewayConfig;
  store: AccessStore;
  logger: Logger;
  memory?: AccessMemoryPort;
  /** `/reminders` and `/timezone`. */
  extraCommands?: ExtraCommands;
  erasers?: PersonEraser[];
  notify?: NotifyConversation;
}): AccessControl {
  const { access } = options.config;
  return createAccessControl({
    store: options.store,
    directMessagePolicies: { ...access.dmPolicy },
    allowlist: access.allowlist ?? [],
    groupAllowlist: access.groupAllowlist ?? [],
    rateLimits: {
      person: { burst: access.rateLimit.personBurst, perMinute: access.rateLimit.personPerMinute },
      global: { burst: access.rateLimit.globalBurst, perMinute: access.rateLimit.globalPerMinute },
      exemptChannels: access.rateLimit.web ? [] : ['web'],
    },
    ...(options.memory ? { memory: options.memory } : {}),
    ...(options.extraCommands ? { extraCommands: options.extraCommands } : {}),
    ...(options.erasers ? { erasers: options.erasers } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    logger: options.logger.child({ component: 'access' }),
  });
}
