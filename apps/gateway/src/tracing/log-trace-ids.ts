/** The OTel log data model's names for the active span's ids (what Grafana, Datadog and others link on). */
export interface LogTraceIds {
  trace_id: string;
  span_id: string;
}

let activeIds: (() => LogTraceIds | undefined) | undefined;

/**
 * The ids of the span active where a log line is written, for the logger's `mixin`: every line
 * inside a traced turn, job or worker run carries them, so a line leads to its trace without a
 * search. The tracing setup (`otel-sdk.ts`) installs the reader with `install`, so the logger
 * itself loads no OTel module and costs one branch per line while tracing is off.
 */
export const logTraceIds = {
  install(reader: (() => LogTraceIds | undefined) | undefined): void {
    activeIds = reader;
  },
  /** `{ trace_id, span_id }` of the active span, or nothing. */
  current(): Partial<LogTraceIds> {
    return activeIds?.() ?? {};
  },
};
