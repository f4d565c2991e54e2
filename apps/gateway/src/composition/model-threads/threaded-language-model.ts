import type { ModelCallHandle, ModelThreadError, ModelThreadPool } from './model-thread-pool.ts';
import { fromThreadError } from './thread-errors.ts';
import type {
  ModelCallOptions,
  ModelGenerateResult,
  ModelSpec,
  ModelStreamPart,
  ModelStreamResult,
  ModelThreadEvent,
  ProviderModel,
} from './thread-messages.ts';

/** The provider id each provider's chat model reports (`provider` of its model object). */
const PROVIDER_IDS: Record<NonNullable<ModelSpec['provider']>, string> = {
  'openai-compatible': 'openai-compatible.chat',
  openai: 'openai.chat',
  anthropic: 'anthropic.messages',
};

/**
 * A language model whose calls run on a model thread (`ModelThreadPool`), for the AI SDK on this
 * thread exactly what the provider's own model object is: doStream resolves when the provider's
 * did (response headers in), its stream carries the provider's parts, errors arrive as the same
 * classes with the same fields (APICallError with its status and body…), so retries, the
 * agent's error mapping and usage counting read what they read before.
 *
 * An abort ends the call here at once, with the signal's reason, as the provider's fetch does, and
 * tells the thread to abort the HTTP request. The stream has no back-pressure towards the thread:
 * a model's answer is small, and its reader (the agent loop) reads on without waiting.
 */
export function createThreadedLanguageModel(pool: ModelThreadPool, spec: ModelSpec): ProviderModel {
  const model = pool.define(spec);
  let supportedUrls: Promise<Record<string, RegExp[]>> | undefined;
  const describe = () =>
    new Promise<Record<string, RegExp[]>>((resolve, reject) => {
      pool.call(model, 'describe', undefined, {
        onEvent: (event) =>
          event.type === 'described' ? resolve(event.supportedUrls) : reject(failure(event)),
        onThreadLost: reject,
      });
    });
  return {
    specificationVersion: 'v4',
    provider: PROVIDER_IDS[spec.provider!],
    modelId: spec.name!,
    // Asked of the thread once (a thread that stopped on the way is asked again next time).
    get supportedUrls() {
      supportedUrls ??= describe().catch((error: unknown) => {
        supportedUrls = undefined;
        throw error;
      });
      return supportedUrls;
    },
    doStream: (options) => streamOnThread(pool, model, options),
    doGenerate: (options) => generateOnThread(pool, model, options),
  };
}

function failure(event: ModelThreadEvent): unknown {
  return event.type === 'failed' ? fromThreadError(event.error) : new Error(`unexpected ${event.type}`);
}

/** The caller's abort signal, followed until the call ends: aborting ends it with the signal's reason. */
function followAbort(
  signal: AbortSignal | undefined,
  handle: ModelCallHandle,
  end: (reason: unknown) => void,
) {
  if (!signal) return () => {};
  const onAbort = () => {
    handle.abort();
    end(signal.reason);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

function streamOnThread(
  pool: ModelThreadPool,
  model: number,
  options: ModelCallOptions,
): Promise<ModelStreamResult> {
  const { abortSignal, ...sent } = options;
  return new Promise((resolve, reject) => {
    if (abortSignal?.aborted) return reject(abortSignal.reason);
    let controller: ReadableStreamDefaultController<ModelStreamPart> | undefined;
    let unfollow = () => {};
    const fail = (error: unknown) => {
      unfollow();
      if (controller) controller.error(error);
      else reject(error);
    };
    const handle = pool.call(model, 'stream', sent, {
      onEvent(event) {
        switch (event.type) {
          case 'started': {
            const stream = new ReadableStream<ModelStreamPart>({
              start: (started) => {
                controller = started;
              },
              cancel: () => {
                unfollow();
                handle.cancel();
              },
            });
            resolve({
              stream,
              ...(event.request ? { request: event.request } : {}),
              ...(event.response ? { response: event.response } : {}),
            });
            break;
          }
          case 'parts':
            for (const part of event.parts)
              controller?.enqueue(
                part.type === 'error' ? { type: 'error', error: fromThreadError(part.error) } : part,
              );
            break;
          case 'end':
            unfollow();
            controller?.close();
            break;
          default:
            fail(failure(event));
        }
      },
      onThreadLost: (error: ModelThreadError) => fail(error),
    });
    unfollow = followAbort(abortSignal, handle, fail);
  });
}

function generateOnThread(
  pool: ModelThreadPool,
  model: number,
  options: ModelCallOptions,
): Promise<ModelGenerateResult> {
  const { abortSignal, ...sent } = options;
  return new Promise((resolve, reject) => {
    if (abortSignal?.aborted) return reject(abortSignal.reason);
    let unfollow = () => {};
    const handle = pool.call(model, 'generate', sent, {
      onEvent(event) {
        unfollow();
        if (event.type === 'result') resolve(event.result);
        else reject(failure(event));
      },
      onThreadLost(error) {
        unfollow();
        reject(error);
      },
    });
    unfollow = followAbort(abortSignal, handle, (reason) => reject(reason));
  });
}
