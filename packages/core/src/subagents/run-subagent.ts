import type { Logger } from '@nexus/protocol';
import type { ToolSet } from 'ai';
import type { AgentUsage } from '../agent/agent.ts';
import { tracedMemoryStep } from '../memory/context/memory-step-span.ts';
import { runMemoryStep } from '../memory/context/run-memory-step.ts';
import { failureMessage } from '../memory/extraction/failure-message.ts';
import { GROUP_MEMORY_NOTE } from '../memory/memory-subject.ts';
import type { SubagentFanOut } from './subagent-fan-out.ts';
import type { TurnToolsContext } from './turn-tools-context.ts';

export type SubagentOutcome =
  | { status: 'ok'; text: string; usage?: AgentUsage }
  | { status: 'timeout' | 'error' | 'refused' | 'budget'; error: string; text: string };

/**
 * One subagent run: its own prompt, a small memory block for the task (same person), the tool
 * subset, a timeout, and the parent's abort signal. An abort of the parent is rethrown (the whole
 * reply stops); a timeout or model failure becomes a result the parent model can work with.
 */
export async function runSubagent(options: {
  task: string;
  depth: number;
  context: TurnToolsContext;
  fanOut: SubagentFanOut;
  tools: ToolSet;
  abortSignal?: AbortSignal;
  logger: Logger;
}): Promise<SubagentOutcome> {
  const { context, fanOut, logger } = options;
  const settings = context.subagents;
  const agent = context.agent;
  if (!agent) return { status: 'refused', error: 'Subagents are not available.', text: '' };
  if (fanOut.started >= settings.maxPerTurn) {
    logger.warn({ maxPerTurn: settings.maxPerTurn }, 'subagent refused: too many in this reply');
    return {
      status: 'refused',
      error: `At most ${settings.maxPerTurn} helpers per reply; do the rest yourself.`,
      text: '',
    };
  }
  fanOut.started += 1;
  await fanOut.slots.acquire();
  const startedAt = context.now();
  const controller = new AbortController();
  const parent = options.abortSignal;
  const followParent = () => controller.abort(parent?.reason);
  if (parent?.aborted) followParent();
  parent?.addEventListener('abort', followParent, { once: true });
  const timer = setTimeout(() => {
    controller.abort(
      new DOMException(`The helper did not finish within ${settings.timeoutMs} ms.`, 'TimeoutError'),
    );
  }, settings.timeoutMs);
  let text = '';
  let usage: AgentUsage | undefined;
  let memoriesUsed = 0;
  let stopped = false;
  let outcome: SubagentOutcome;
  try {
    let block = '';
    if (context.memory && !controller.signal.aborted) {
      const memory = await taskMemory(context.memory, options.task, context, controller.signal, logger);
      block = memory.block;
      memoriesUsed = memory.memoriesUsed;
    }
    if (controller.signal.aborted) throw controller.signal.reason;
    for await (const part of agent.run({
      system: settings.systemPrompt,
      ...(block ? { systemContext: block } : {}),
      history: [],
      userText: options.task,
      userId: context.userId,
      tools: options.tools,
      abortSignal: controller.signal,
      ...(context.budget ? { budget: context.budget } : {}),
    })) {
      if (part.type === 'text-delta') text += part.text;
      // A helper's files are not forwarded: its result to the main run is text only.
      else if (part.type === 'media' || part.type === 'status') continue;
      else {
        text = part.text;
        usage = part.usage;
        stopped = part.stopped !== undefined;
      }
    }
    outcome = stopped
      ? {
          status: 'budget',
          error: 'The helper stopped: this message has used up its model budget. Answer with what you have.',
          text,
        }
      : usage
        ? { status: 'ok', text, usage }
        : { status: 'ok', text };
  } catch (error) {
    if (parent?.aborted) {
      logSubagent(logger, { outcome: 'aborted', startedAt, context, usage, memoriesUsed });
      throw parent.reason ?? error;
    }
    const timedOut = controller.signal.aborted;
    outcome = {
      status: timedOut ? 'timeout' : 'error',
      error: timedOut
        ? `The helper did not finish within ${settings.timeoutMs} ms.`
        : `The helper failed: ${failureMessage(error)}`,
      text,
    };
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', followParent);
    fanOut.slots.release();
  }
  logSubagent(logger, { outcome: outcome.status, startedAt, context, usage, memoriesUsed });
  return outcome;
}

/**
 * A small memory block for the task, from the same memory as the run that delegated: in a group,
 * the group's and no person's. No standing facts and no summary: the task says what matters.
 */
async function taskMemory(
  memory: NonNullable<TurnToolsContext['memory']>,
  task: string,
  context: TurnToolsContext,
  abortSignal: AbortSignal,
  logger: Logger,
): Promise<{ block: string; memoriesUsed: number }> {
  const settings = context.subagents;
  const memoryStep = tracedMemoryStep(context.tracer, runMemoryStep, { for: 'subagent' });
  const step = await memoryStep({
    memory,
    userId: context.userId,
    query: task,
    sessionId: context.sessionId,
    budgetMs: Math.min(context.memoryBudgetMs, settings.timeoutMs),
    tokenBudget: settings.memoryTokenBudget,
    limit: settings.memoryLimit,
    includeProfile: false,
    includeSessionSummary: false,
    profileTokenBudget: 0,
    profileLimit: 0,
    tokenCounter: context.tokenCounter,
    now: context.now,
    logger,
    abortSignal,
  });
  const block =
    context.memorySubject === 'group'
      ? [GROUP_MEMORY_NOTE, step.block].filter(Boolean).join('\n\n')
      : step.block;
  return { block, memoriesUsed: step.report.memoriesUsed };
}

function logSubagent(
  logger: Logger,
  details: {
    outcome: string;
    startedAt: number;
    context: TurnToolsContext;
    usage: AgentUsage | undefined;
    memoriesUsed: number;
  },
): void {
  const level = details.outcome === 'ok' ? 'info' : 'warn';
  logger[level](
    {
      outcome: details.outcome,
      durationMs: details.context.now() - details.startedAt,
      memoriesUsed: details.memoriesUsed,
      usage: details.usage ?? {},
    },
    'subagent finished',
  );
}
