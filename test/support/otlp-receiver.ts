/**
 * An OTLP/HTTP trace receiver on loopback, standing in for the OpenTelemetry
 * collector (not installable here): it takes `POST /v1/traces`, answers
 * 200, keeps the content type of every export, and keeps the spans of the
 * JSON ones (`http/json`), flattened; a protobuf export (`http/protobuf`,
 * the SDK's default) is counted, not decoded.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  /** The resource's `service.name`. */
  service: unknown;
}

export interface OtlpReceiver {
  /** The endpoint to give as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans(): ReceivedSpan[];
  /** The content type of each export received, in order. */
  contentTypes(): string[];
  /** Resolves once the spans received so far satisfy `done`. */
  until(done: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
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

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue,
    ]),
  );
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const contentType = String(request.headers['content-type'] ?? '');
      contentTypes.push(contentType);
      const body = contentType.startsWith('application/json')
        ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest)
        : {};
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = attributesOf(resourceSpans.resource?.attributes)['service.name'];
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            received.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              attributes: attributesOf(span.attributes),
              service,
            });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    contentTypes: () => [...contentTypes],
    until: (done) =>
      new Promise((resolve) => {
        const check = () => {
          if (!done(received)) return;
          waiters.delete(check);
          resolve([...received]);
        };
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
