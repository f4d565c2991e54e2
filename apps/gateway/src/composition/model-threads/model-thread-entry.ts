import { parentPort } from 'node:worker_threads';
import { createProviderModel } from '../create-provider-model.ts';
import { createModelFetch } from '../model-fetch.ts';
import { toThreadError } from './thread-error-record.ts';
import type {
  FromModelThread,
  ModelSpec,
  ModelStreamPart,
  ModelThreadEvent,
  ProviderModel,
  ToModelThread,
} from './thread-messages.ts';
import { postMessageTo, receiveMessage } from './thread-post.ts';

type CallMessage = Extract<ToModelThread, { type: 'stream' | 'generate' }>;

/**
 * A model thread: holds the real provider models (built from the same config as the main thread
 * would) and runs their calls — the HTTP request, the SSE parsing, the per-chunk JSON and schema
 * checks — handing the main thread only the resulting stream parts, batched per event-loop turn.
 */
// One keep-alive client for every call of this thread, as the main thread has for its own.
const modelFetch = createModelFetch();
const specs = new Map<number, ModelSpec>();
const models = new Map<number, Promise<ProviderModel>>();
/** Calls in flight, by id: how to abort the request and cancel the stream being read. */
const calls = new Map<number, { controller: AbortController; cancel?: () => void }>();

let outbox: ModelThreadEvent[] = [];
let flushScheduled = false;

/** Queues an event for the main thread; everything queued in this event-loop turn goes as one message. */
function send(event: ModelThreadEvent): void {
  const last = outbox.at(-1);
  if (event.type === 'parts' && last?.type === 'parts' && last.id === event.id)
    last.parts.push(...event.parts);
  else outbox.push(event);
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flush);
}

function flush(): void {
  flushScheduled = false;
  const batch: FromModelThread = outbox;
  outbox = [];
  postMessageTo(parentPort!, batch);
}

function modelFor(key: number): Promise<ProviderModel> {
  let model = models.get(key);
  if (!model) {
    const spec = specs.get(key);
    if (!spec) throw new Error(`model ${key} was not defined on this thread`);
    model = createProviderModel(spec, { fetch: modelFetch }).then((built) => {
      if (!built) throw new Error('no model provider is configured');
      return built as ProviderModel;
    });
    models.set(key, model);
  }
  return model;
}

/** A stream part as it crosses: an `error` part's error as a ThreadError, the rest as is. */
function crossing(part: ModelStreamPart): ModelStreamPart {
  return part.type === 'error' ? { type: 'error', error: toThreadError(part.error) } : part;
}

async function stream(message: CallMessage): Promise<void> {
  const { id } = message;
  const call: { controller: AbortController; cancel?: () => void } = { controller: new AbortController() };
  calls.set(id, call);
  try {
    const model = await modelFor(message.model);
    const result = await model.doStream({ ...message.options, abortSignal: call.controller.signal });
    send({ type: 'started', id, request: result.request, response: result.response });
    const reader = result.stream.getReader();
    call.cancel = () => void reader.cancel().catch(() => {});
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      send({ type: 'parts', id, parts: [crossing(value)] });
    }
    send({ type: 'end', id });
  } catch (error) {
    send({ type: 'failed', id, error: toThreadError(error) });
  } finally {
    calls.delete(id);
  }
}

async function generate(message: CallMessage): Promise<void> {
  const { id } = message;
  const call = { controller: new AbortController() };
  calls.set(id, call);
  try {
    const model = await modelFor(message.model);
    const result = await model.doGenerate({ ...message.options, abortSignal: call.controller.signal });
    send({ type: 'result', id, result });
  } catch (error) {
    send({ type: 'failed', id, error: toThreadError(error) });
  } finally {
    calls.delete(id);
  }
}

async function describe(message: Extract<ToModelThread, { type: 'describe' }>): Promise<void> {
  try {
    const model = await modelFor(message.model);
    send({ type: 'described', id: message.id, supportedUrls: await model.supportedUrls });
  } catch (error) {
    send({ type: 'failed', id: message.id, error: toThreadError(error) });
  }
}

// Imported outside a model thread only to fill the compile cache (bin/fill-compile-cache.mjs):
// there is no main thread to serve then.
parentPort?.on('message', (data: unknown) => {
  const message = receiveMessage(data) as ToModelThread;
  switch (message.type) {
    case 'define':
      specs.set(message.model, message.spec);
      // Built now, so the first call does not wait for the provider's SDK to load; a failure
      // to build is reported to the call that needs the model.
      modelFor(message.model).catch(() => {});
      break;
    case 'describe':
      void describe(message);
      break;
    case 'stream':
      void stream(message);
      break;
    case 'generate':
      void generate(message);
      break;
    case 'abort':
      calls.get(message.id)?.controller.abort(new DOMException('The model call was aborted.', 'AbortError'));
      break;
    case 'cancel': {
      // Before the stream exists (the main thread gave up waiting), cancelling is aborting.
      const call = calls.get(message.id);
      if (call?.cancel) call.cancel();
      else call?.controller.abort(new DOMException('The model call was cancelled.', 'AbortError'));
      break;
    }
  }
});
