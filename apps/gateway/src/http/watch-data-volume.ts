import type { Logger } from '@nexus/protocol';
import { type DataVolumeSpace, dataVolumeSpace } from '../data-dir/data-volume-space.ts';

const ASK_EVERY_MS = 5_000;

/**
 * The data volume's free space for `/ready`, measured again at most every five seconds when
 * `/ready` is read (the compose healthcheck reads it every ten); a read returns what the last
 * measure said, undefined before the first. A change to nearly full or full is logged once, so
 * the log says "disk full" next to the refused messages.
 */
export function watchDataVolume(options: {
  dataDir: string;
  minFreeMb: number;
  logger: Logger;
}): () => DataVolumeSpace | undefined {
  let space: DataVolumeSpace | undefined;
  let askedAt = Number.NEGATIVE_INFINITY;
  let asking = false;
  let warnedUnknown = false;
  const ask = () => {
    askedAt = Date.now();
    asking = true;
    dataVolumeSpace(options.dataDir, options.minFreeMb)
      .then(
        (measured) => {
          if (measured.status !== (space?.status ?? 'ok')) {
            const line = { dataVolume: measured.status, availableBytes: measured.availableBytes };
            if (measured.status === 'full') options.logger.error(line, measured.detail);
            else if (measured.status === 'low') options.logger.warn(line, measured.detail);
            else options.logger.info(line, `data volume has room again (${measured.detail})`);
          }
          space = measured;
        },
        (error: unknown) => {
          if (!warnedUnknown) options.logger.warn({ err: error }, 'cannot measure the data volume');
          warnedUnknown = true;
        },
      )
      .finally(() => {
        asking = false;
      });
  };
  ask();
  return () => {
    if (!asking && Date.now() - askedAt >= ASK_EVERY_MS) ask();
    return space;
  };
}
