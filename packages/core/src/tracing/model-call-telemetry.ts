/**
 * What the AI SDK may put on its spans when tracing is on. Prompts carry the memory block and the
 * conversation, replies carry what the person was told: people's private data, which must not
 * leave for a trace back end by default. Spans keep model, token counts, finish reason and timing.
 */
const RECORDED = { recordInputs: false, recordOutputs: false } as const;
/**
 * With tracing off the SDK's telemetry is switched off outright: left on, it copies, filters and
 * redacts every lifecycle event of every model call for no listener (about 8% of a plain turn's
 * heap allocation, measured with the allocation sampler).
 */
const OFF = { isEnabled: false, ...RECORDED } as const;

let tracing = false;

/** Called where OpenTelemetry is registered with the AI SDK: model calls then produce spans. */
export function enableModelCallTelemetry(): void {
  tracing = true;
}

/** The `telemetry` option of every model call. */
export function modelCallTelemetry(): typeof RECORDED | typeof OFF {
  return tracing ? RECORDED : OFF;
}

/** Whether model calls are traced (OpenTelemetry registered with the AI SDK). */
export function modelCallsTraced(): boolean {
  return tracing;
}
