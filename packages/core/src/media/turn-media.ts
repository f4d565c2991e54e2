import type { ChannelAdapter, Intent, Logger } from '@nexus/protocol';
import type { MediaSettings } from './media-settings.ts';

/** An image for the model, type checked from its bytes. */
export interface TurnImage {
  bytes: Uint8Array;
  mediaType: string;
}

/** What a turn's attachments became. */
export interface TurnMedia {
  /** The turn's text: what the person wrote, then what they said in voice notes. */
  text: string;
  /** Transcripts of voice notes, shown back to the person ("🎤 I heard: …"). */
  heard: string[];
  images: TurnImage[];
  /** Document text for the prompt, already cut to the budget. */
  documents: string[];
  /** One honest sentence per attachment that could not be used. */
  problems: string[];
  /** Nothing usable is left: answer with `problems` alone, without a model call. */
  problemsOnly: boolean;
}

export interface PrepareTurnMediaOptions {
  intent: Intent;
  adapter: ChannelAdapter;
  settings: MediaSettings;
  logger: Logger;
  abortSignal?: AbortSignal;
}
