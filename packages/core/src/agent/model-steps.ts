import {
  type LanguageModel,
  type LanguageModelStreamPart,
  type LanguageModelUsage,
  type ModelMessage,
  type ProviderMetadata,
  experimental_streamLanguageModelCall as streamModelCall,
  type ToolSet,
} from 'ai';
import {
  addLanguageModelUsage,
  createNullLanguageModelUsage,
  prepareRetries,
  toResponseMessages,
} from 'ai/internal';

/** The parts of a run the agent reads: the same shapes as the AI SDK's streamText parts. */
export type ModelStepPart =
  | Extract<LanguageModelStreamPart, { type: 'text-delta' | 'file' | 'tool-error' | 'error' }>
  | { type: 'tool-result'; toolCallId: string; toolName: string; input: unknown; output: unknown }
  | { type: 'finish'; finishReason: string; totalUsage: LanguageModelUsage };

export interface ModelStepsOptions {
  model: LanguageModel;
  instructions: string;
  messages: ModelMessage[];
  tools: ToolSet | undefined;
  /** Model calls at most, tool rounds included. */
  maxSteps: number;
  /** Asked after a step whose tool results the model would read next: true ends the run there. */
  stopAfterStep?: () => Promise<boolean>;
  maxRetries: number;
  abortSignal: AbortSignal;
  /** What the provider warned about a call (an unsupported setting…); streamText printed these. */
  onWarnings?: (warnings: readonly unknown[]) => void;
}

type StepContent = Parameters<typeof toResponseMessages>[0]['content'];
type OpenText = { type: 'text' | 'reasoning'; text: string; providerMetadata?: ProviderMetadata | undefined };

/**
 * The model-and-tools loop of one agent run, over the AI SDK's single-call primitive: each step is
 * one model call (prompt conversion, tool schemas and tool-call parsing by the SDK), the tools it
 * asked for run, their results go back as the SDK's own response messages, until the model stops
 * asking, the step limit or `stopAfterStep` ends it.
 *
 * Why not streamText: it is the same loop, plus an event processor, step and output transforms
 * and callback plumbing that a run we read once never uses. Under bench:gateway that machinery
 * was about 0.6 ms of CPU and a fifth of the heap allocated per turn. streamText stays where its
 * extras are wanted (tracing: its spans; see agent.ts).
 *
 * What is kept: a failed call is retried as streamText retries it (the SDK's retry policy, before
 * any output); a stream error surfaces as an `error` part; a tool call the SDK could not parse
 * (unknown tool, input against its schema) becomes a `tool-error` the model reads next step, as
 * does a tool that throws; a streaming tool's last output is its result.
 */
export async function* runModelSteps(options: ModelStepsOptions): AsyncGenerator<ModelStepPart> {
  const { retry } = prepareRetries({ maxRetries: options.maxRetries, abortSignal: options.abortSignal });
  const messages = [...options.messages];
  let totalUsage: LanguageModelUsage | undefined;
  for (let step = 1; ; step += 1) {
    const call = await retry(() =>
      streamModelCall({
        model: options.model,
        instructions: options.instructions,
        messages,
        ...(options.tools ? { tools: options.tools } : {}),
        abortSignal: options.abortSignal,
      }),
    );
    const record = new StepRecord(options);
    // The stream read directly rather than through the SDK's async iterator, which wraps every
    // part in another promise and result object; the same ends as that iterator's: a run left
    // early (the consumer stopped, an error part thrown) cancels the call, a failed read does not.
    const reader = call.stream.getReader();
    let ended = false;
    try {
      for (;;) {
        let read: Awaited<ReturnType<typeof reader.read>>;
        try {
          read = await reader.read();
        } catch (error) {
          ended = true;
          throw error;
        }
        if (read.done) {
          ended = true;
          break;
        }
        if (record.take(read.value)) yield read.value as ModelStepPart;
      }
    } catch (error) {
      // Left by an error of the loop's own: the call is cancelled and that error is the one that
      // surfaces, as when a for-await loop throws.
      if (!ended) {
        ended = true;
        await reader.cancel().catch(() => undefined);
      }
      throw error;
    } finally {
      // Left early without an error (the consumer returned): the call is cancelled.
      if (!ended) await reader.cancel();
      try {
        reader.releaseLock();
      } catch {}
    }
    const { content, toolCalls, finishReason } = record;
    if (record.usage)
      totalUsage = totalUsage ? addLanguageModelUsage(totalUsage, record.usage) : record.usage;
    const runsTools = finishReason === 'stop' || finishReason === 'tool-calls';
    if (runsTools && toolCalls.length > 0) {
      const outcomes = await Promise.all(toolCalls.map((toolCall) => runTool(toolCall, options, messages)));
      for (const outcome of outcomes) {
        content.push(outcome);
        yield outcome;
      }
    }
    const answered = runsTools ? toolCalls.length + record.toolErrors : 0;
    const more = answered > 0 && step < options.maxSteps && !(await options.stopAfterStep?.());
    if (!more) {
      yield { type: 'finish', finishReason, totalUsage: totalUsage ?? createNullLanguageModelUsage() };
      return;
    }
    messages.push(...(await toResponseMessages({ content, tools: options.tools })));
  }
}

/**
 * What one model call's parts make of its step: the content that goes back in the next step's
 * prompt, the tool calls to run, the parse failures the model reads next, the finish reason and
 * the usage. `take` records a part and says whether the run passes it on to the agent.
 */
class StepRecord {
  readonly content: StepContent = [];
  readonly toolCalls: Extract<LanguageModelStreamPart, { type: 'tool-call' }>[] = [];
  toolErrors = 0;
  finishReason = 'other';
  usage: LanguageModelUsage | undefined;
  // Text and reasoning being streamed, by id: their whole text goes back in the next step's prompt.
  readonly #openText = { text: new Map<string, OpenText>(), reasoning: new Map<string, OpenText>() };
  readonly #options: ModelStepsOptions;

  constructor(options: ModelStepsOptions) {
    this.#options = options;
  }

  take(part: LanguageModelStreamPart): boolean {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const kind = part.type === 'text-start' ? 'text' : 'reasoning';
        const entry: OpenText = { type: kind, text: '', providerMetadata: part.providerMetadata };
        this.#openText[kind].set(part.id, entry);
        this.content.push(entry as StepContent[number]);
        return false;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const entry = this.#openText[part.type === 'text-delta' ? 'text' : 'reasoning'].get(part.id);
        if (entry) {
          entry.text += part.text;
          entry.providerMetadata = part.providerMetadata ?? entry.providerMetadata;
        }
        return part.type === 'text-delta';
      }
      case 'text-end':
      case 'reasoning-end': {
        const open = this.#openText[part.type === 'text-end' ? 'text' : 'reasoning'];
        const entry = open.get(part.id);
        if (entry) entry.providerMetadata = part.providerMetadata ?? entry.providerMetadata;
        open.delete(part.id);
        return false;
      }
      case 'file':
        this.content.push({
          type: 'file',
          file: part.file,
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        });
        return true;
      case 'tool-call':
        this.content.push(part);
        // As streamText: only tools with an `execute` of ours run here.
        if (!part.invalid && part.providerExecuted !== true && this.#options.tools?.[part.toolName]?.execute)
          this.toolCalls.push(part);
        return false;
      case 'tool-error':
        // A call the SDK could not parse; its error goes back to the model like a failed tool's.
        this.content.push(part);
        this.toolErrors += 1;
        return true;
      case 'error':
        return true;
      case 'model-call-start':
        if (part.warnings.length > 0) this.#options.onWarnings?.(part.warnings);
        return false;
      case 'model-call-end':
        this.finishReason = part.finishReason;
        this.usage = part.usage;
        return false;
      default:
        return false;
    }
  }
}

/** Runs one tool call; what it returns (or the last value a streaming tool yields) or throws. */
async function runTool(
  toolCall: Extract<LanguageModelStreamPart, { type: 'tool-call' }>,
  options: ModelStepsOptions,
  messages: ModelMessage[],
): Promise<Extract<StepContent[number], { type: 'tool-result' | 'tool-error' }>> {
  const { toolCallId, toolName, input } = toolCall;
  const tool = options.tools![toolName]!;
  try {
    let output: unknown = await tool.execute!(input as never, {
      toolCallId,
      messages,
      abortSignal: options.abortSignal,
      context: undefined as never,
    });
    if (isAsyncIterable(output)) {
      let last: unknown;
      for await (const value of output) last = value;
      output = last;
    }
    return {
      type: 'tool-result',
      toolCallId,
      toolName,
      input,
      output,
      dynamic: tool.type === 'dynamic',
    } as never;
  } catch (error) {
    return {
      type: 'tool-error',
      toolCallId,
      toolName,
      input,
      error,
      dynamic: tool.type === 'dynamic',
    } as never;
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
