import { join } from 'node:path';
import {
  createAttachmentRefusals,
  createFileMediaStore,
  createOpenAiTranscriber,
  type MediaSettings,
  type MediaStore,
} from '@nexus/core';
import type { GatewayConfig } from '../config/gateway-config.ts';

/** The media store under `<dataDir>/media`; the CLI opens the same one to forget a person. */
export function openGatewayMediaStore(config: GatewayConfig): MediaStore {
  return createFileMediaStore({
    directory: join(config.dataDir, 'media'),
    retentionDays: config.media.retentionDays,
    maxBytesPerPersonPerDay: config.media.personDailyBytes,
    maxTotalBytes: config.media.maxTotalBytes,
  });
}

/** Core's media settings from the gateway's; the store sweeps files past their retention once a day. */
export function createGatewayMedia(config: GatewayConfig): {
  settings: MediaSettings;
  /** The same store core writes to; web uploads keep their bytes in it. */
  store: MediaStore;
  stop(): void;
} {
  const { media } = config;
  const store = openGatewayMediaStore(config);
  const sweep = () => void store.sweep(Date.now()).catch(() => undefined);
  sweep();
  const timer = setInterval(sweep, 24 * 60 * 60 * 1000);
  timer.unref();
  return {
    store,
    settings: {
      vision: media.vision,
      maxBytes: media.maxBytes,
      timeBudgetMs: media.timeBudgetMs,
      documentMaxChars: media.documentMaxChars,
      pdfMaxPages: media.pdfMaxPages,
      store,
      refusals: createAttachmentRefusals({ perDay: media.refusedPerDay }),
      ...(media.transcriptionBaseUrl
        ? {
            transcriber: createOpenAiTranscriber({
              baseUrl: media.transcriptionBaseUrl,
              model: media.transcriptionModel,
              ...(media.transcriptionApiKey ? { apiKey: media.transcriptionApiKey } : {}),
            }),
          }
        : {}),
    },
    stop: () => clearInterval(timer),
  };
}
