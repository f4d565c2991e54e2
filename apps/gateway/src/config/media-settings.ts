import { z } from 'zod';
import type { SettingDefinition } from './setting-definition.ts';
import { booleanText, positiveInt } from './setting-schemas.ts';

/**
 * Pictures, voice and documents: vision, size and time limits, retention, and transcription.
 * Part of the settings table (`settings.ts`), in its order.
 */
export const MEDIA_SETTINGS = [
  {
    env: 'NEXUS_MODEL_VISION',
    path: 'media.vision',
    schema: booleanText,
    defaultValue: false,
    description:
      'The model accepts images. Off: a photo gets a short reply that the configured model cannot see images. See docs/media.md.',
    hint: 'use true or false',
  },
  {
    env: 'NEXUS_MEDIA_MAX_BYTES',
    path: 'media.maxBytes',
    schema: positiveInt,
    defaultValue: 20 * 1024 * 1024,
    description:
      'Largest attachment (photo, voice note, document) downloaded; bigger ones get a clear reply. Also the cap of a web-chat upload (`POST /api/web/uploads` answers 413 above it).',
    hint: 'set it to a byte count such as 20971520',
  },
  {
    env: 'NEXUS_MEDIA_TIME_BUDGET_MS',
    path: 'media.timeBudgetMs',
    schema: positiveInt,
    defaultValue: 30_000,
    description:
      'Time one attachment may take to download, transcribe or read; after it the person is told, and the conversation moves on.',
    hint: 'set it to a positive number of milliseconds such as 30000',
  },
  {
    env: 'NEXUS_MEDIA_RETENTION_DAYS',
    path: 'media.retentionDays',
    schema: positiveInt,
    defaultValue: 30,
    description:
      'Days received media is kept in `<dataDir>/media` (files 0600, one folder per person, named by content hash; deleted sooner when the person is forgotten), web-chat uploads included (their owner records in `<dataDir>/web-uploads`).',
    hint: 'set it to a positive number of days such as 30',
  },
  {
    env: 'NEXUS_MEDIA_PERSON_DAILY_BYTES',
    path: 'media.personDailyBytes',
    schema: positiveInt,
    defaultValue: 256 * 1024 * 1024,
    description:
      'Bytes of media one person may have kept in any 24 hours (attachments core used, web-chat uploads). Past it their new files get a reply to try again tomorrow and are not downloaded. See docs/media.md.',
    hint: 'set it to a byte count such as 268435456',
  },
  {
    env: 'NEXUS_MEDIA_MAX_TOTAL_BYTES',
    path: 'media.maxTotalBytes',
    schema: positiveInt,
    defaultValue: 2 * 1024 * 1024 * 1024,
    description:
      'Bytes the whole `<dataDir>/media` folder may hold; to keep a new file under it, the oldest files are removed first. Keep it well below the free space of the data volume (SQLite and Redis share it).',
    hint: 'set it to a byte count such as 2147483648',
  },
  {
    env: 'NEXUS_MEDIA_REFUSED_PER_DAY',
    path: 'media.refusedPerDay',
    schema: positiveInt,
    defaultValue: 20,
    description:
      'Messages with an attachment that could not be used (wrong type, too large, unreadable) one person may send in 24 hours; past it their attachments get one sentence and are not downloaded until the window frees up. Counted in memory.',
    hint: 'set it to a positive integer such as 20',
  },
  {
    env: 'NEXUS_DOCUMENT_MAX_CHARS',
    path: 'media.documentMaxChars',
    schema: positiveInt,
    defaultValue: 24_000,
    description:
      'Characters of document text (PDF, plain text) given to the model per message; the rest is cut.',
    hint: 'set it to a positive integer such as 24000',
  },
  {
    env: 'NEXUS_PDF_MAX_PAGES',
    path: 'media.pdfMaxPages',
    schema: positiveInt,
    defaultValue: 50,
    description: 'Pages of a PDF read at most; the model is told when the rest was left out.',
    hint: 'set it to a positive integer such as 50',
  },
  {
    env: 'NEXUS_TRANSCRIPTION_BASE_URL',
    path: 'media.transcriptionBaseUrl',
    schema: z.url(),
    description:
      'OpenAI-compatible speech-to-text API (`POST /audio/transcriptions`), e.g. `http://whisper:8000/v1` (compose profile `whisper`). Unset: voice notes get a reply that they cannot be listened to.',
    hint: 'use a full URL such as http://127.0.0.1:8000/v1',
  },
  {
    env: 'NEXUS_TRANSCRIPTION_MODEL',
    path: 'media.transcriptionModel',
    schema: z.string().min(1),
    defaultValue: 'whisper-1',
    description: 'Model id sent to the transcription API.',
    hint: 'set it to a model id the transcription server serves, e.g. whisper-1',
  },
  {
    env: 'NEXUS_TRANSCRIPTION_API_KEY',
    path: 'media.transcriptionApiKey',
    schema: z.string().min(1),
    description:
      'API key for the transcription API, when it needs one. Also read from `NEXUS_TRANSCRIPTION_API_KEY_FILE`.',
    hint: 'paste the key, or point NEXUS_TRANSCRIPTION_API_KEY_FILE at a file holding it',
    secret: true,
  },
] as const satisfies readonly SettingDefinition[];
