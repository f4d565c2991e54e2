import type { LanguageModel } from 'ai';
import type { GatewayConfig } from '../../config/gateway-config.ts';

/** The provider-facing model interface (the AI SDK's LanguageModelV4), without naming its package. */
export type ProviderModel = Extract<LanguageModel, { specificationVersion: 'v4' }>;
export type ModelCallOptions = Parameters<ProviderModel['doStream']>[0];
export type ModelStreamResult = Awaited<ReturnType<ProviderModel['doStream']>>;
export type ModelStreamPart = ModelStreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
export type ModelGenerateResult = Awaited<ReturnType<ProviderModel['doGenerate']>>;

/** What a model thread needs to build the same provider model the main thread would. */
export type ModelSpec = Pick<GatewayConfig['model'], 'provider' | 'baseUrl' | 'apiKey' | 'name'>;

/** The main thread to a model thread. Ids are the main thread's, one per call. */
export type ToModelThread =
  | { type: 'define'; model: number; spec: ModelSpec }
  | { type: 'describe'; id: number; model: number }
  | { type: 'stream' | 'generate'; id: number; model: number; options: Omit<ModelCallOptions, 'abortSignal'> }
  /** The caller's signal aborted: abort the HTTP request. */
  | { type: 'abort'; id: number }
  /** The caller cancelled the stream it was reading: cancel the provider's stream. */
  | { type: 'cancel'; id: number };

/**
 * A model thread to the main thread: a batch of events, everything it has for every call since
 * its last batch (one message per event-loop turn of the thread, not one per stream part).
 */
export type FromModelThread = ModelThreadEvent[];

export type ModelThreadEvent =
  /** Answer to `describe`. */
  | { type: 'described'; id: number; supportedUrls: Record<string, RegExp[]> }
  /** doStream resolved: the stream parts follow. */
  | {
      type: 'started';
      id: number;
      request: ModelStreamResult['request'];
      response: ModelStreamResult['response'];
    }
  | { type: 'parts'; id: number; parts: ModelStreamPart[] }
  /** The provider's stream ended. */
  | { type: 'end'; id: number }
  /** doGenerate resolved. */
  | { type: 'result'; id: number; result: ModelGenerateResult }
  /** The call failed: doStream or doGenerate rejected, or the stream errored (a ThreadError). */
  | { type: 'failed'; id: number; error: unknown };
