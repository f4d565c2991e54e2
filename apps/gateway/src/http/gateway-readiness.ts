import type { GatewayParts, GatewayState } from '../composition/gateway-parts.ts';
import type { Readiness } from './http-handler.ts';

/** `/ready`: up while not stopping, the web channel up and Redis (when used) reachable; every check shown. */
export function gatewayReadiness(
  parts: Pick<GatewayParts, 'web' | 'distributed' | 'model' | 'platformChannels'>,
  state: GatewayState,
): () => Readiness {
  const { web, distributed, model, platformChannels } = parts;
  return () => {
    const webHealth = web.health();
    const redisHealth = distributed?.health();
    return {
      ready: !state.stopping && webHealth.status === 'up' && (redisHealth?.status ?? 'up') === 'up',
      checks: {
        gateway: { status: state.stopping ? 'stopping' : 'up' },
        model: model
          ? { status: 'configured' }
          : { status: 'not_configured', detail: 'set NEXUS_MODEL_PROVIDER' },
        web: webHealth,
        ...(redisHealth ? { redis: redisHealth } : {}),
        ...Object.fromEntries(platformChannels.map((channel) => [channel.name, channel.health()])),
      },
    };
  };
}
