import type { IntakeResult, Intent, Logger, Revision } from '@nexus/protocol';
import type { AccessDecision } from '../access/access-decision.ts';
import type { SessionStore } from '../session-store/session-store.ts';
import { isIntakeResult, storeUnavailable } from './intake-refusals.ts';

/** An access decision that gets an answer: a model turn or a reply without the model. */
export type AnsweredDecision = Exclude<AccessDecision, { action: 'reject' | 'ignore' }>;

export interface AccessStep {
  /** The access port's check (in its span when tracing); unset, every intent becomes a turn. */
  check?: (intent: Intent) => Promise<AccessDecision>;
  /** The store intake writes the inbox to, for whether an edited message was seen. */
  sessionStore: SessionStore;
  logger: Logger;
}

/**
 * Access: who may talk, commands, pairing; an edit or delete under the revision rules. A refusal
 * or a silent drop comes back as the intake result.
 */
export async function decideAccess(
  intent: Intent,
  step: AccessStep,
): Promise<AnsweredDecision | IntakeResult> {
  if (!intent.revises) return checkAccess(intent, step);
  try {
    return await decideRevisionAccess(intent, intent.revises, step);
  } catch (error) {
    step.logger.error({ err: error }, 'session store failed during intake');
    return storeUnavailable();
  }
}

/**
 * The access check alone. Also what a replayed command goes through: its answer was never worked
 * out, so it is decided again as if the message had just arrived.
 */
export async function checkAccess(
  intent: Intent,
  step: AccessStep,
): Promise<AnsweredDecision | IntakeResult> {
  if (!step.check) return { action: 'turn', intent };
  try {
    const decision = await step.check(intent);
    if (decision.action === 'reject')
      return { status: 'rejected', code: decision.code, message: decision.message };
    if (decision.action === 'ignore') return { status: 'accepted' };
    return decision;
  } catch (error) {
    step.logger.error({ err: error }, 'access check failed during intake');
    return { status: 'rejected', code: 'internal', message: 'The access store is not available.' };
  }
}

/**
 * An edit or delete of a message core has seen (answered or waiting) goes through the access
 * step's revision rules. An edit of a message never seen is a new message under every rule of
 * one (mention in groups, commands, pairing), keeping `revises` so its reply threads under it;
 * a delete of one has nothing to do.
 */
async function decideRevisionAccess(
  intent: Intent,
  revises: Revision,
  step: AccessStep,
): Promise<AnsweredDecision | IntakeResult> {
  const seen = await step.sessionStore.hasIntent({
    channel: intent.channel,
    intentId: revises.targetIntentId,
  });
  if (seen) return checkAccess(intent, step);
  if (revises.kind === 'delete' || revises.kind === 'choose') return { status: 'accepted' };
  const { revises: _edit, ...asNew } = intent;
  const decision = await checkAccess(asNew, step);
  if (isIntakeResult(decision) || decision.action !== 'turn') return decision;
  return { ...decision, intent: { ...decision.intent, revises } };
}
