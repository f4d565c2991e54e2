/**
 * What the AI SDK may put on its spans when tracing is on. Prompts carry the memory block and the
 * conversation, replies carry what the person was told: people's private data, which must not
 * leave for a trace back end by default. Spans keep model, token counts, finish reason and timing.
 */
export const MODEL_CALL_TELEMETRY = { recordInputs: false, recordOutputs: false } as const;
