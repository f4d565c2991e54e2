import type { ChannelAdapter, IntakeResult, Intent, IntentInput, IntentSink, Logger } from '@nexus/protocol';
import type { Attributes } from '@opentelemetry/api';
import type { AccessControl, AccessDecision } from '../access/access-decision.ts';
import type { ConversationLanes } from '../lanes/conversation-lanes.ts';
import type { SessionStore } from '../session-store/session-store.ts';
import { SPAN } from '../tracing/span-names.ts';
import { traced } from '../tracing/traced.ts';
import { spanIdOf, type TurnTracing } from '../tracing/turn-tracing.ts';
import type { TurnDependencies, TurnReport } from '../turn/run-turn.ts';
import { checkLaneRoom } from './check-lane-room.ts';
import { type AccessStep, decideAccess } from './decide-access.ts';
import { deduplicateIntent } from './deduplicate-intent.ts';
import { enqueueIntent } from './enqueue-intent.ts';
import { createIntakeOrder } from './intake-order.ts';
import { channelUnavailable, isIntakeResult, shuttingDown } from './intake-refusals.ts';
import { createIntentDeduplicator, dedupeKeyOf } from './intent-deduplicator.ts';
import { createLaneTasks } from './lane-tasks.ts';
import { type InboxReplay, replayInbox } from './replay-inbox.ts';
import { validateIntent } from './validate-intent.ts';
import { inboxEntryOf, writeInbox } from './write-inbox.ts';

export interface IntakeOptions {
  /** The store intake writes the inbox to (not scoped by the access step). */
  sessionStore: SessionStore;
  access: AccessControl | undefined;
  lanes: ConversationLanes;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  /** What the lanes' turns run with. */
  dependencies: TurnDependencies;
  /** How long intent ids are remembered in memory (the store remembers answered ones forever). */
  deduplicationTtlMs: number;
  logger: Logger;
  now: () => number;
  onTurnFinished?: (report: TurnReport) => void;
}

export interface Intake {
  /** validate → de-duplicate → access → lane room → inbox → enqueue; `accepted` survives a restart. */
  take: IntentSink;
  /** The inbox entries an earlier process left, back into the pipeline after its inbox step. */
  replayInbox(): Promise<InboxReplay>;
  /** From now on intents are refused with a retryable `shutting_down`. */
  stopAccepting(): void;
}

/**
 * The intake pipeline, the twin of the turn's: each step a file named after it, composed here,
 * with the spans opened around them (`nexus.intake`, and `nexus.access` around the access port).
 */
export function createIntake(options: IntakeOptions): Intake {
  const { sessionStore, lanes, logger, now } = options;
  const tracing = options.dependencies.tracing;
  const deduplicator = createIntentDeduplicator({
    ttlMs: options.deduplicationTtlMs,
    maxEntries: 100_000,
    now,
  });
  const order = createIntakeOrder();
  const laneTasks = createLaneTasks({
    sessionStore,
    dependencies: options.dependencies,
    lanes: lanesInTraceContext(lanes, tracing),
    deduplicator,
    logger,
    now,
    ...(options.onTurnFinished ? { onTurnFinished: options.onTurnFinished } : {}),
  });
  const access = options.access;
  const accessStep: AccessStep = {
    ...(access
      ? {
          check: traced(tracing?.tracer, SPAN.access, (intent: Intent) => access.check(intent), {
            result: (decision: AccessDecision) => ({ 'nexus.access.action': decision.action }),
          }),
        }
      : {}),
    sessionStore,
    logger,
  };
  let accepting = true;

  async function take(input: IntentInput): Promise<IntakeResult> {
    if (!accepting) return shuttingDown();
    const intent = validateIntent(input);
    if (isIntakeResult(intent)) return intent;
    // One conversation's intents pass the awaiting steps one at a time, in the order handed over.
    return order.run(conversationKeyOf(intent), () => admit(intent));
  }

  /** The steps after validation; a refusal after the de-dupe claim releases it for a retry. */
  async function admit(intent: Intent): Promise<IntakeResult> {
    const adapter = options.adapters.get(intent.channel);
    if (!adapter) return channelUnavailable(intent.channel);
    const result =
      (await deduplicateIntent(intent, { deduplicator, sessionStore, logger })) ??
      (await afterClaim(intent, adapter));
    if (result.status === 'rejected') deduplicator.release(dedupeKeyOf(intent.channel, intent.id));
    return result;
  }

  /** access → lane room → inbox → enqueue, once the intent is claimed as not seen. */
  async function afterClaim(intent: Intent, adapter: ChannelAdapter): Promise<IntakeResult> {
    const decision = await decideAccess(intent, accessStep);
    if (isIntakeResult(decision)) return decision;
    const conversationKey = conversationKeyOf(intent);
    const noRoom = checkLaneRoom(conversationKey, { accepting, lanes });
    if (noRoom) return noRoom;
    const entry = inboxEntryOf(intent, decision, conversationKey, now());
    const written = await writeInbox(entry, { sessionStore, logger });
    if (written !== 'admitted') return written;
    enqueueIntent(entry, adapter, decision, laneTasks);
    return { status: 'accepted' };
  }

  return {
    take: traced(tracing?.tracer, SPAN.intake, take, {
      attributes: (input) => intakeSpanAttributes(tracing, input),
      result: (result) => ({
        'nexus.intake.status': result.status,
        ...(result.status === 'rejected' ? { 'nexus.intake.code': result.code } : {}),
      }),
    }),
    replayInbox: () =>
      replayInbox({
        sessionStore,
        adapters: options.adapters,
        deduplicator,
        laneTasks,
        access: accessStep,
        logger,
        now,
      }),
    stopAccepting() {
      accepting = false;
    },
  };
}

/**
 * The lanes, each task bound to the trace context it is enqueued in: a lane may run it after other
 * turns, and it belongs to its own intake's trace, not theirs.
 */
function lanesInTraceContext(
  lanes: ConversationLanes,
  tracing: TurnTracing | undefined,
): Pick<ConversationLanes, 'enqueue'> {
  if (!tracing) return lanes;
  return { enqueue: (key, task, options) => lanes.enqueue(key, tracing.bindToActiveContext(task), options) };
}

/** `nexus.intake`'s attributes, read from the input before it is validated. */
function intakeSpanAttributes(tracing: TurnTracing | undefined, input: IntentInput): Attributes {
  if (!input || typeof input !== 'object') return {};
  const intentId = spanIdOf(tracing, String((input as { id?: unknown }).id));
  return {
    'nexus.channel': String((input as { channel?: unknown }).channel),
    ...(intentId ? { 'nexus.intent_id': intentId } : {}),
  };
}

const conversationKeyOf = (intent: Intent): string => `${intent.channel}:${intent.conversation.id}`;
