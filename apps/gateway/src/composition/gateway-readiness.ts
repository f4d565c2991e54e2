import type { DataVolumeSpace } from '../data-dir/data-volume-space.ts';
import type { Readiness } from '../http/http-handler.ts';
import type { GatewayParts, GatewayState } from './gateway-parts.ts';

/**
 * `/ready`: up while not stopping, the web channel up, Redis (when used) reachable and the data
 * volume not full; every check shown.
 */
export function gatewayReadiness(
  parts: Pick<GatewayParts, 'web' | 'distributed' | 'model' | 'platformChannels'>,
  state: GatewayState,
  dataVolume: () => DataVolumeSpace | undefined,
): () => Readiness {
  const { web, distributed, model, platformChannels } = parts;
  return () => {
    const webHealth = web.health();
    const redisHealth = distributed?.health();
    const space = dataVolume();
    return {
      ready:
        !state.stopping &&
        webHealth.status === 'up' &&
        (redisHealth?.status ?? 'up') === 'up' &&
        space?.status !== 'full',
      checks: {
        gateway: { status: state.stopping ? 'stopping' : 'up' },
        model: model
          ? { status: 'configured' }
          : { status: 'not_configured', detail: 'set NEXUS_MODEL_PROVIDER' },
        web: webHealth,
        dataVolume: space ? { status: space.status, detail: space.detail } : { status: 'unknown' },
        ...(redisHealth ? { redis: redisHealth } : {}),
        ...Object.fromEntries(platformChannels.map((channel) => [channel.name, channel.health()])),
      },
    };
  };
}
