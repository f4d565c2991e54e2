// `pnpm bench:media`: what core's media step adds to a turn with a photo or a voice note,
// excluding the model's and the transcriber's own time. The channel serves the bytes from memory
// (a platform download is network time, not Nexus's), the transcriber is the scripted server
// over real HTTP and its time is measured around the call and subtracted.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChannelAdapter, type IntentInput, intentSchema, silentLogger } from '@nexus/protocol';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { makeOggOpusVoiceNote, makePng } from '@nexus/testkit/media';
import { DEFAULT_MEDIA_SETTINGS, type MediaSettings } from '../src/media/media-settings.ts';
import { createFileMediaStore } from '../src/media/media-store.ts';
import { prepareTurnMedia } from '../src/media/prepare-turn-media.ts';
import { createOpenAiTranscriber, type Transcriber } from '../src/media/transcriber.ts';

const TURNS = 300;
const files = new Map([
  ['photo', makePng(640, 480)],
  ['voice', makeOggOpusVoiceNote(5)],
]);
const adapter: ChannelAdapter = {
  name: 'bench',
  // Takes in the two kinds the bench sends (photos, voice notes); replies are dropped.
  capabilities: {
    edits: false,
    typing: false,
    groups: false,
    mediaIn: ['image', 'voice'],
    mediaOut: [],
    linking: 'none',
  },
  async start() {},
  async stop() {},
  async deliver() {},
  health: () => ({ status: 'up' }),
  async fetchAttachment({ attachment }) {
    return { bytes: files.get(attachment.platformFileId ?? '') ?? new Uint8Array() };
  },
};

const model = await startScriptedModelServer({ recordRequests: false, transcript: 'book a table for two' });
const directory = await mkdtemp(join(tmpdir(), 'nexus-media-bench-'));
let transcriberMs = 0;
const http = createOpenAiTranscriber({ baseUrl: model.baseUrl, model: 'whisper-1' });
const timedTranscriber: Transcriber = {
  async transcribe(options) {
    const started = performance.now();
    try {
      return await http.transcribe(options);
    } finally {
      transcriberMs += performance.now() - started;
    }
  },
};
const settings: MediaSettings = {
  ...DEFAULT_MEDIA_SETTINGS,
  vision: true,
  transcriber: timedTranscriber,
  store: createFileMediaStore({ directory, retentionDays: 1 }),
};

async function overheads(kind: 'image' | 'voice', fileId: string): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < TURNS + 20; index += 1) {
    const input: IntentInput = {
      id: `${kind}-${index}`,
      channel: 'bench',
      conversation: { id: 'c', kind: 'direct' },
      sender: { platformId: 'p' },
      userId: 'bench:p',
      text: '',
      attachments: [{ kind, platformFileId: fileId }],
      mentionsAssistant: false,
      receivedAt: new Date().toISOString(),
    };
    const intent = intentSchema.parse(input);
    transcriberMs = 0;
    const started = performance.now();
    await prepareTurnMedia({ intent, adapter, settings, logger: silentLogger });
    const elapsed = performance.now() - started - transcriberMs;
    if (index >= 20) samples.push(elapsed); // the first turns warm up the JIT and the file system
  }
  return samples;
}

function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round((sorted[Math.ceil(sorted.length * 0.95) - 1] ?? 0) * 100) / 100;
}

const image = await overheads('image', 'photo');
const voice = await overheads('voice', 'voice');
await model.close();
await rm(directory, { recursive: true, force: true });
console.log(
  JSON.stringify({ image_turn_overhead_p95_ms: p95(image), voice_turn_overhead_p95_ms: p95(voice) }),
);
