// An in-process OTLP/HTTP trace receiver for the tracing tests: a node:http server that takes the
// exporter's JSON export requests (`POST /v1/traces`, application/json) and keeps every span.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** The exporting process's `service.name`. */
  service: string;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** Base URL, as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Export requests seen, whatever their content. */
  requests: number;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: KeyValue[];
      }>;
    }>;
  }>;
}

function decodeValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, decodeValue(entry.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const receiver = { spans, requests: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests += 1;
      const json = request.headers['content-type']?.startsWith('application/json');
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !json) {
        response.writeHead(415).end();
        return;
      }
      let body: ExportRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
      } catch {
        response.writeHead(400).end();
        return;
      }
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
        for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
          for (const span of scopeSpans.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              service,
              attributes: attributesOf(span.attributes),
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
