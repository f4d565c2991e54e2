import { type Logger, type ReplyMedia, silentLogger } from '@nexus/protocol';
import {
  isStepCount,
  type LanguageModel,
  type ModelMessage,
  experimental_streamTextLowMemory as streamTextSingleConsumer,
  type TextStreamPart,
  type ToolSet,
  wrapLanguageModel,
} from 'ai';
import { budgetMiddleware } from '../cost/budget-middleware.ts';
import { type BudgetStopReason, budgetStopOf, type TurnBudget, type TurnSpend } from '../cost/turn-budget.ts';
import {
  MAX_REPLY_MEDIA_PER_TURN,
  replyMediaOfGeneratedFile,
  replyMediaOfToolOutput,
} from '../reply-media/reply-media-of.ts';
import { modelCallsTraced, modelCallTelemetry } from '../tracing/model-call-telemetry.ts';
import { hasAnyTool } from './has-any-tool.ts';
import { type ModelStepPart, runModelSteps } from './model-steps.ts';

export type AgentPart =
  | { type: 'text-delta'; text: string }
  /** An image or file the model generated or a tool returned, for the channel to send. */
  | { type: 'media'; media: ReplyMedia }
  /** Something to show while the run waits (a worker or its queue is not reachable yet); not reply text. */
  | { type: 'status'; text: string }
  | {
      type: 'finish';
      text: string;
      usage?: AgentUsage;
      /** Model requests and tokens of this run, as the budget counted them (set when it had one). */
      spend?: TurnSpend;
      /** The message's budget ran out and cut this run short; `text` is what was generated before. */
      stopped?: BudgetStopReason;
    };

/** Tokens a run used over all its steps, as the provider reported them. */
export interface AgentUsage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  totalTokens?: number | undefined;
}

export interface AgentRunOptions {
  /** Overrides the agent's system prompt for this run (e.g. a subagent's own prompt). */
  system?: string;
  /** Appended to the system prompt, ahead of history: the memory block of this turn. */
  systemContext?: string;
  history: ModelMessage[];
  userText: string;
  /** Images sent with the message (only when the model has vision); become image parts. */
  userImages?: ReadonlyArray<{ bytes: Uint8Array; mediaType: string }>;
  /** Text of documents sent with the message, passed ahead of the person's words. */
  userDocuments?: readonly string[];
  /** The person speaking; a run handed to another process carries it so `/forget-me` finds it. */
  userId?: string;
  /** Tools for this run only (bound to the person speaking), added to the agent's own. */
  tools?: ToolSet;
  abortSignal?: AbortSignal;
  /** The allowance of the inbound message this run serves; shared with its subagents. */
  budget?: TurnBudget;
}

/** Produces one reply as a stream of text deltas and a final `finish` with the whole text. */
export interface Agent {
  /** False when no model is set; the agent then answers with the not-configured message. */
  readonly configured: boolean;
  run(options: AgentRunOptions): AsyncIterable<AgentPart>;
}

export interface CreateAgentOptions {
  model?: LanguageModel;
  systemPrompt?: string;
  tools?: ToolSet;
  /** Model calls per run, tool rounds included. */
  maxSteps?: number;
  /** Wall-clock limit of a whole run. */
  timeoutMs?: number;
  /** Retries of a failed model call before the run fails. */
  maxRetries?: number;
  notConfiguredMessage?: string;
  logger?: Logger;
}

export const DEFAULT_SYSTEM_PROMPT =
  'You are Nexus, a helpful personal assistant. Answer clearly and concisely.';
export const DEFAULT_NOT_CONFIGURED_MESSAGE =
  'No model provider is configured yet, so I cannot answer. The operator can set one in the Nexus configuration.';

/**
 * The agent over the Vercel AI SDK. Every run has a step limit, a wall-clock limit and follows
 * the caller's abort signal; a timeout surfaces as an error named `TimeoutError`, an abort as the
 * signal's reason, provider failures as the SDK's errors (see `toModelError`).
 */
export function createAgent(options: CreateAgentOptions): Agent {
  const model = options.model;
  const maxSteps = options.maxSteps ?? 5;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxRetries = options.maxRetries ?? 1;
  const systemPrompt = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
  const notConfiguredMessage = options.notConfiguredMessage ?? DEFAULT_NOT_CONFIGURED_MESSAGE;
  const logger = options.logger ?? silentLogger;
  // Each distinct provider warning once per process: the same setting is warned about every call.
  const warned = new Set<string>();
  const warnOnce = (warnings: readonly unknown[]) => {
    for (const warning of warnings) {
      const key = JSON.stringify(warning);
      if (warned.has(key) || warned.size >= 100) continue;
      warned.add(key);
      logger.warn({ warning }, 'the model provider warned about a call');
    }
  };

  if (model === undefined) {
    return {
      configured: false,
      async *run() {
        yield { type: 'text-delta', text: notConfiguredMessage };
        yield { type: 'finish', text: notConfiguredMessage };
      },
    };
  }

  return {
    configured: true,
    async *run(runOptions) {
      const controller = new AbortController();
      const timer = setTimeout(() => {
        controller.abort(new DOMException(`The model run exceeded ${timeoutMs} ms.`, 'TimeoutError'));
      }, timeoutMs);
      const outer = runOptions.abortSignal;
      const forwardAbort = () => controller.abort(outer?.reason);
      if (outer?.aborted) forwardAbort();
      outer?.addEventListener('abort', forwardAbort, { once: true });
      try {
        const base = runOptions.system ?? systemPrompt;
        const tools = withRunTools(options.tools, runOptions.tools);
        const budget = runOptions.budget;
        const spend: TurnSpend = { modelCalls: 0, inputTokens: 0, outputTokens: 0 };
        // A model given by id string resolves inside the SDK; only model objects can carry the guard.
        const guarded =
          budget && typeof model !== 'string'
            ? wrapLanguageModel({ model, middleware: budgetMiddleware(budget, spend) })
            : model;
        const instructions = runOptions.systemContext ? `${base}\n\n${runOptions.systemContext}` : base;
        const messages = [...runOptions.history, userMessage(runOptions)];
        const withTools = tools && hasAnyTool(tools) ? tools : undefined;
        // With a budget, the loop also ends after a step once the message's allowance is used up,
        // so no request is even attempted; a parallel subagent may still use it up mid-step,
        // and then the refused claim ends the run (below).
        const budgetUsedUp = budget ? async () => (await budget.exhausted()) !== undefined : undefined;
        const parts: AsyncIterable<ModelStepPart | TextStreamPart<ToolSet>> = modelCallsTraced()
          ? // Tracing on: streamText, whose spans (invoke_agent, chat, execute_tool) the traces
            // show. Its single-consumer variant keeps no replayable copy of every part.
            streamTextSingleConsumer({
              model: guarded,
              instructions,
              messages,
              ...(withTools ? { tools: withTools } : {}),
              stopWhen: budgetUsedUp ? [isStepCount(maxSteps), budgetUsedUp] : isStepCount(maxSteps),
              maxRetries,
              telemetry: modelCallTelemetry(),
              abortSignal: controller.signal,
              // Errors arrive as stream parts and are reported below; keep the SDK off the console.
              onError: () => {},
            }).stream
          : runModelSteps({
              model: guarded,
              instructions,
              messages,
              tools: withTools,
              maxSteps,
              ...(budgetUsedUp ? { stopAfterStep: budgetUsedUp } : {}),
              maxRetries,
              abortSignal: controller.signal,
              onWarnings: warnOnce,
            });
        let text = '';
        let usage: AgentUsage | undefined;
        let stopped: BudgetStopReason | undefined;
        let wantedMore = false;
        let mediaCount = 0;
        const mediaOf = (found: ReplyMedia[]): ReplyMedia[] => {
          const room = Math.max(0, MAX_REPLY_MEDIA_PER_TURN - mediaCount);
          if (found.length > room)
            logger.warn({ dropped: found.length - room }, 'reply media over the limit');
          mediaCount += Math.min(found.length, room);
          return found.slice(0, room);
        };
        try {
          for await (const part of parts) {
            if (part.type === 'text-delta') {
              if (part.text.length === 0) continue;
              text += part.text;
              yield { type: 'text-delta', text: part.text };
            } else if (part.type === 'file') {
              const media = replyMediaOfGeneratedFile(part.file, mediaCount);
              for (const item of mediaOf(media ? [media] : [])) yield { type: 'media', media: item };
            } else if (part.type === 'tool-result') {
              for (const item of mediaOf(replyMediaOfToolOutput(part.output, mediaCount)))
                yield { type: 'media', media: item };
            } else if (part.type === 'error') {
              throw part.error;
            } else if (part.type === 'abort') {
              throw controller.signal.reason ?? new DOMException('The model run was aborted.', 'AbortError');
            } else if (part.type === 'tool-error') {
              logger.warn({ toolName: part.toolName, err: part.error }, 'tool failed');
            } else if (part.type === 'finish') {
              const { inputTokens, outputTokens, totalTokens } = part.totalUsage;
              usage = { inputTokens, outputTokens, totalTokens };
              wantedMore = part.finishReason === 'tool-calls';
            }
          }
        } catch (error) {
          stopped = budgetStopOf(error);
          if (stopped === undefined || controller.signal.aborted) throw error;
        }
        if (controller.signal.aborted) throw controller.signal.reason;
        // The loop ended while the model still wanted tool results: the budget's stop condition.
        if (budget && stopped === undefined && wantedMore) stopped = await budget.exhausted();
        if (stopped) logger.warn({ reason: stopped, spend }, 'run stopped by the message budget');
        usage ??= stopped ? { inputTokens: spend.inputTokens, outputTokens: spend.outputTokens } : undefined;
        yield {
          type: 'finish',
          text,
          ...(usage ? { usage } : {}),
          ...(budget ? { spend } : {}),
          ...(stopped ? { stopped } : {}),
        };
      } catch (error) {
        // An abort often surfaces as a generic AbortError; report why the run really stopped.
        throw controller.signal.aborted ? controller.signal.reason : error;
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener('abort', forwardAbort);
      }
    },
  };
}

/** The person's message: plain text, or content parts when documents or images came with it. */
function userMessage(options: AgentRunOptions): ModelMessage {
  const images = options.userImages ?? [];
  const documents = options.userDocuments ?? [];
  if (images.length === 0 && documents.length === 0) return { role: 'user', content: options.userText };
  return {
    role: 'user',
    content: [
      ...documents.map((text) => ({ type: 'text' as const, text })),
      ...(options.userText.trim() === '' ? [] : [{ type: 'text' as const, text: options.userText }]),
      ...images.map((image) => ({ type: 'file' as const, data: image.bytes, mediaType: image.mediaType })),
    ],
  };
}

/** The agent's tools with the run's own; a copy only when both have some (the run's set is already this run's object). */
function withRunTools(agentTools: ToolSet | undefined, runTools: ToolSet | undefined): ToolSet | undefined {
  return runTools && agentTools ? { ...agentTools, ...runTools } : (runTools ?? agentTools);
}
