import { join } from 'node:path';
import { WEB_CHANNEL_NAME } from '@nexus/channel-websocket';
import type { MediaStore } from '@nexus/core';
import type { GatewayConfig } from '../config/gateway-config.ts';
import { createFileWebUploads, type FileWebUploads } from './file-web-uploads.ts';

/** The upload records under `<dataDir>/web-uploads`; the CLI opens the same ones to forget a person. */
export function openGatewayWebUploads(config: GatewayConfig, media: MediaStore): FileWebUploads {
  return createFileWebUploads({
    directory: join(config.dataDir, 'web-uploads'),
    media,
    // The channel's own default name, so the uploads and the channel derive the same person ids.
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
