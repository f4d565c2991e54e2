import { join } from 'node:path';
import type { MediaStore } from '@nexus/core';
import type { GatewayConfig } from '../gateway-config.ts';
import { createFileWebUploads, type FileWebUploads } from './file-web-uploads.ts';

/** The web client's uploads under `<dataDir>/web-uploads`, swept once a day like the media store. */
export function createGatewayWebUploads(
  config: GatewayConfig,
  media: MediaStore,
): { uploads: FileWebUploads; stop(): void } {
  const uploads = createFileWebUploads({
    directory: join(config.dataDir, 'web-uploads'),
    media,
    retentionDays: config.media.retentionDays,
  });
  const sweep = () => void uploads.sweep(Date.now()).catch(() => undefined);
  sweep();
  const timer = setInterval(sweep, 24 * 60 * 60 * 1000);
  timer.unref();
  return { uploads, stop: () => clearInterval(timer) };
}
