import { join } from 'node:path';
import type { MediaStore } from '@nexus/core';
import type { GatewayConfig } from '../gateway-config.ts';
import { createFileWebUploads, type FileWebUploads } from './file-web-uploads.ts';

/**
 * The web channel's name, given to the channel and to its upload store alike: a web client's
 * person id is `<name>:<clientId>`, which is whose media folder its uploads go to.
 */
export const WEB_CHANNEL_NAME = 'web';

/** The upload records under `<dataDir>/web-uploads`; the CLI opens the same ones to forget a person. */
export function openGatewayWebUploads(config: GatewayConfig, media: MediaStore): FileWebUploads {
  return createFileWebUploads({
    directory: join(config.dataDir, 'web-uploads'),
    media,
    channelName: WEB_CHANNEL_NAME,
    retentionDays: config.media.retentionDays,
  });
}

/** The web client's uploads, swept once a day like the media store. */
export function createGatewayWebUploads(
  config: GatewayConfig,
  media: MediaStore,
): { uploads: FileWebUploads; stop(): void } {
  const uploads = openGatewayWebUploads(config, media);
  const sweep = () => void uploads.sweep(Date.now()).catch(() => undefined);
  sweep();
  const timer = setInterval(sweep, 24 * 60 * 60 * 1000);
  timer.unref();
  return { uploads, stop: () => clearInterval(timer) };
}
