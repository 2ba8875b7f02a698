/**
 * The gateway's spans, through `@opentelemetry/api` only: a no-op until an
 * SDK registers itself (`runtime/adapters/otel/`, started when the `OTEL_*`
 * variables ask for it), so the core calls it unconditionally and pays next
 * to nothing when tracing is off. One span per MCP request
 * (`mcp-endpoint.ts`), with the governance decision, the upstream call and
 * the audit write as its children; W3C trace context comes in from the
 * request (its `_meta` first, else its `traceparent` header) and goes out on
 * every outbound request made inside a span (`guarded-client.ts`).
 *
 * No attribute carries a secret, an argument or a name a remote server
 * chose: only method names from a closed list, reason codes, classes,
 * statuses and hosts.
 */
import {
  type AttributeValue,
  type Context,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

const tracer = trace.getTracer('portcullis');

export type SpanAttributes = Record<string, AttributeValue>;

/** W3C trace context as a carrier: `traceparent` and, optionally, `tracestate`. */
export interface TraceCarrier {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}

const carrierGetter = {
  keys: (carrier: TraceCarrier) => Object.keys(carrier),
  get: (carrier: TraceCarrier, key: string) => {
    const value = carrier[key as keyof TraceCarrier];
    return typeof value === 'string' ? value : undefined;
  },
};

/** The context a request's span is the child of: the trace it carries, if any. */
export function incomingContext(carrier: TraceCarrier | undefined): Context {
  if (carrier?.traceparent === undefined) return context.active();
  return propagation.extract(ROOT_CONTEXT, carrier, carrierGetter);
}

/**
 * Runs `body` in a span named `name`, the child of `parent` (else of the
 * active span), made the active span while `body` runs (what a request made
 * inside it carries upstream); the span ends when `body` settles, with an
 * error status when it throws.
 */
export function inSpan<T>(
  name: string,
  attributes: SpanAttributes,
  body: (span: Span) => Promise<T>,
  options: { parent?: Context; kind?: SpanKind } = {},
): Promise<T> {
  return tracer.startActiveSpan(
    name,
    { attributes, kind: options.kind ?? SpanKind.INTERNAL },
    options.parent ?? context.active(),
    async (span) => {
      try {
        return await body(span);
      } catch (error) {
        failSpan(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * A span around work that starts no span and sends no request of its own (a
 * decision, an audit write): the child of the active span, never made active
 * itself, so it costs no context switch (on Node 20 every `context.with` and
 * every promise made inside it pays for AsyncLocalStorage). `body` may be
 * synchronous or return a promise; the span ends when it settles.
 */
export function leafSpan<T>(name: string, body: (span: Span) => T): T {
  const span = tracer.startSpan(name);
  let result: T;
  try {
    result = body(span);
  } catch (error) {
    failSpan(span, error);
    span.end();
    throw error;
  }
  if (!(result instanceof Promise)) {
    span.end();
    return result;
  }
  return result.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failSpan(span, error);
      span.end();
      throw error;
    },
  ) as T;
}

function failSpan(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') span.setAttribute('portcullis.reason', code);
}

/** Starts a span the caller ends (a reply that ends after its function returns). */
export function startSpan(
  name: string,
  attributes: SpanAttributes,
  parent: Context,
  kind: SpanKind = SpanKind.SERVER,
): { span: Span; context: Context } {
  const span = tracer.startSpan(name, { attributes, kind }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `body` with `active` as the active context. */
export function withContext<T>(active: Context, body: () => T): T {
  return context.with(active, body);
}

/** Ends a span, marked as failed when `failed`. */
export function endSpan(span: Span, failed: boolean, reason?: string): void {
  if (reason !== undefined) span.setAttribute('portcullis.reason', reason);
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * The active span's trace context as a `traceparent`, when a span is active
 * (tracing on, sampled or not): what the audit event records, so a call is
 * found in the traces by its trace id.
 */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const ctx = span.spanContext();
  if (!isSpanContextValid(ctx)) return undefined;
  return `00-${ctx.traceId}-${ctx.spanId}-${(ctx.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** Adds the active trace context's headers (`traceparent`, `tracestate`) to an outbound request's. */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  if (trace.getActiveSpan() === undefined) return headers;
  const added: Record<string, string> = {};
  propagation.inject(context.active(), added);
  if (added.traceparent === undefined) return headers;
  return { ...headers, ...added };
}

export { SpanKind };
