import { createHash } from 'node:crypto';
import { errorCodeSchema, replyMediaSchema } from '@nexus/protocol';
import { z } from 'zod';

/**
 * The wire format between a gateway and its workers. A turn becomes one `agent.run` job carrying
 * everything the run needs but the bytes of images (references, fetched from the gateway with
 * `media-request`); the worker streams run messages into the gateway's inbox (a Redis
 * stream), and the gateway answers tool calls and cancellations into the worker's inbox.
 *
 * Every run of a job (a retry after a worker died is a new run) has its own `runId` and numbers
 * its messages from 0 (`start`). The gateway follows the run that started last and drops the
 * messages of any other run, and any message whose `seq` it already applied.
 */
export const AGENT_RUN_JOB = 'agent.run';

const jsonObject = z.record(z.string(), z.unknown());

export const agentRunPayloadSchema = z.object({
  v: z.literal(1),
  turnId: z.string().min(1).max(200),
  /** The gateway inbox the run messages go to. */
  replyTo: z.string().min(1),
  /** Epoch ms after which the gateway no longer waits: a worker that picks the job up later skips it. */
  deadlineAt: z.number(),
  system: z.string().optional(),
  systemContext: z.string().optional(),
  /** ModelMessage[] of the AI SDK, as JSON. */
  history: z.array(jsonObject),
  userText: z.string(),
  /** Document text sent with the message (see docs/media.md). */
  userDocuments: z.array(z.string()).optional(),
  /**
   * Images sent with the message, for a model with vision: references only. The worker asks the
   * gateway for each one's bytes over the run channel (`media-request`), so no job in Redis ever
   * holds a photo. The bare base64 form is what gateways before it sent; it is still read.
   */
  userImages: z
    .array(
      z.union([
        z.object({ ref: z.string().min(1).max(100), mediaType: z.string(), byteLength: z.number().int() }),
        z.object({ base64: z.string(), mediaType: z.string() }),
      ]),
    )
    .optional(),
  /** The person speaking, so `/forget-me` finds this job (and through its id, its streams). */
  userId: z.string().optional(),
  /** Tools the gateway runs on the worker's behalf (they are bound to the person speaking there). */
  tools: z.array(
    z.object({ name: z.string().min(1), description: z.string().optional(), inputSchema: jsonObject }),
  ),
  /**
   * The allowance of the inbound message this run serves: its counters are shared in Redis under
   * `id`, so every run of the message (subagents too, on any worker) draws from the same caps.
   */
  budget: z
    .object({
      id: z.string().min(1).max(200),
      channel: z.string().min(1).max(100),
      maxModelCalls: z.number().int().positive(),
      maxOutputTokens: z.number().int().positive(),
      // Optional so a gateway from before the input cap still talks to this worker.
      maxInputTokens: z.number().int().positive().optional(),
    })
    .optional(),
});
export type AgentRunPayload = z.infer<typeof agentRunPayloadSchema>;

const runHeader = { turnId: z.string(), runId: z.string(), seq: z.number().int().nonnegative() };

/** Worker → gateway. */
export const runMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    ...runHeader,
    kind: z.literal('start'),
    attempt: z.number().int(),
    /** The worker inbox tool results and cancellations go to. */
    replyTo: z.string(),
  }),
  z.object({ ...runHeader, kind: z.literal('delta'), text: z.string() }),
  /** An image or file the run produced (a tool's image, a generated file), bytes included. */
  z.object({ ...runHeader, kind: z.literal('media'), media: replyMediaSchema }),
  z.object({
    ...runHeader,
    kind: z.literal('finish'),
    text: z.string(),
    usage: jsonObject.optional(),
    /** The message's budget cut the run short; `text` is what was generated before. */
    stopped: z.enum(['model_calls', 'output_tokens', 'input_tokens']).optional(),
  }),
  z.object({
    ...runHeader,
    kind: z.literal('error'),
    code: errorCodeSchema,
    message: z.string(),
    retryable: z.boolean(),
  }),
  /** The bytes of one of the turn's images (`userImages[].ref`), answered with `media-bytes`. */
  z.object({ ...runHeader, kind: z.literal('media-request'), ref: z.string() }),
  z.object({
    ...runHeader,
    kind: z.literal('tool-call'),
    callId: z.string(),
    name: z.string(),
    input: z.unknown(),
  }),
]);
export type RunMessage = z.infer<typeof runMessageSchema>;

/** Gateway → worker. */
export const workerMessageSchema = z.discriminatedUnion('kind', [
  z.object({ runId: z.string(), kind: z.literal('tool-result'), callId: z.string(), output: z.unknown() }),
  z.object({ runId: z.string(), kind: z.literal('tool-error'), callId: z.string(), message: z.string() }),
  z.object({ runId: z.string(), kind: z.literal('cancel') }),
  z.object({
    runId: z.string(),
    kind: z.literal('media-bytes'),
    ref: z.string(),
    base64: z.string(),
    mediaType: z.string(),
  }),
  z.object({ runId: z.string(), kind: z.literal('media-error'), ref: z.string(), message: z.string() }),
]);
export type WorkerMessage = z.infer<typeof workerMessageSchema>;

/** How a turn's image is named in its job: its place among the turn's images. */
export function imageRef(index: number): string {
  return `image-${index}`;
}

/** Redis keys, all under the deployment's prefix. */
export function agentRunKeys(prefix: string) {
  return {
    gatewayInbox: (gatewayId: string) => `${prefix}:agent-run:gateway:${gatewayId}`,
    workerInbox: (workerId: string) => `${prefix}:agent-run:worker:${workerId}`,
    /** Set when a run finished, so a redelivered job is not run again. */
    done: (turnId: string) => `${prefix}:agent-run:done:${turnId}`,
    /**
     * The turn ids of one person's recent runs (an hour, as `done`), so forgetting them finds run
     * messages left in inboxes after the job itself was deleted on completion. Keyed by a hash:
     * no person id (a phone number on WhatsApp) appears in a key name.
     */
    personTurns: (userId: string) =>
      `${prefix}:agent-run:person:${createHash('sha256').update(`nexus-agent-run-person\0${userId}`).digest('hex')}`,
  };
}
