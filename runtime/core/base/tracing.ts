/**
 * The gateway's spans, through `@opentelemetry/api` only: a no-op until an
 * SDK registers itself (`runtime/adapters/otel/`, started when the `OTEL_*`
 * variables ask for it), so the core calls it unconditionally and pays next
 * to nothing when tracing is off. One span per MCP request
 * (`mcp/server/request-span.ts`), with the governance decision, the upstream
 * call and the audit write as its children; W3C trace context comes in from
 * the request (its `_meta` first, else its `traceparent` header) and goes
 * out on the upstream request of a call (`outbound/guarded-client.ts`).
 *
 * The trace is passed along explicitly, never through the API's active
 * context: the request's span travels with the request as a `SpanParent`
 * (its scope, then the call's `CallOpening`), each child is started with it
 * as its parent, and the upstream span's context goes out as a
 * `TraceCarrier` on the outbound request. On Node 20 an active context
 * means an AsyncLocalStorage, and once one is entered a promise hook runs
 * for every promise of the process (measured: +10–15% CPU per governed
 * call, before any span is made); nothing here enters one.
 *
 * No attribute carries a secret, an argument or a name a remote server
 * chose: only method names from a closed list, reason codes, classes,
 * statuses and hosts.
 */
import {
  type AttributeValue,
  type Context,
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

/**
 * Where work sits in a trace: the span it is done inside (an OpenTelemetry
 * `Context` holding it), handed along explicitly. `NO_SPAN` outside any.
 */
export type SpanParent = Context;

/** No span: the parent of work done outside any request (a new trace, when traced). */
export const NO_SPAN: SpanParent = ROOT_CONTEXT;

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
export function incomingContext(carrier: TraceCarrier | undefined): SpanParent {
  if (carrier?.traceparent === undefined) return NO_SPAN;
  return propagation.extract(ROOT_CONTEXT, carrier, carrierGetter);
}

/**
 * The span of `parent` when it records nothing (sampled off): a child of it
 * would record nothing either, under every sampler the SDK takes from the
 * environment (a parent-based one follows the parent; `always_off` records
 * nothing; `traceidratio` decides by the trace id, the parent's), so none is
 * made: the work is done in the parent's span, and its requests carry the
 * parent's trace context (same trace id, not sampled).
 */
function unrecorded(parent: SpanParent): Span | undefined {
  const span = trace.getSpan(parent);
  return span !== undefined && !span.isRecording() ? span : undefined;
}

/**
 * Runs `body` in a span named `name`, the child of `parent`; `body` is
 * handed the span's own context (the parent of what it starts, the trace
 * its requests carry upstream). The span ends when `body` settles, with an
 * error status when it fails. Under a parent sampled off, no span is made
 * (`unrecorded`) and `body` is handed `parent`.
 */
export function inSpan<T>(
  name: string,
  attributes: SpanAttributes,
  parent: SpanParent,
  body: (inside: SpanParent) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (unrecorded(parent) !== undefined) {
    try {
      return body(parent);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  const span = tracer.startSpan(name, { attributes, kind }, parent);
  let settled: Promise<T>;
  try {
    settled = body(trace.setSpan(parent, span));
  } catch (error) {
    failSpan(span, error);
    span.end();
    return Promise.reject(error);
  }
  return endedWhenSettled(span, settled);
}

/**
 * A span around work that starts no span and sends no request of its own (a
 * decision, an audit write), the child of `parent`. `body` may be
 * synchronous or return a promise; the span ends when it settles. Under a
 * parent sampled off, none is made (`unrecorded`): `body` is handed the
 * parent's span, which records nothing, and it is not ended here.
 */
export function leafSpan<T>(name: string, parent: SpanParent, body: (span: Span) => T): T {
  const quiet = unrecorded(parent);
  if (quiet !== undefined) return body(quiet);
  const span = tracer.startSpan(name, undefined, parent);
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
  return endedWhenSettled(span, result) as T;
}

/** `settled`, with `span` ended as it settles (marked failed when it fails). */
function endedWhenSettled<T>(span: Span, settled: Promise<T>): Promise<T> {
  return settled.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failSpan(span, error);
      span.end();
      throw error;
    },
  );
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
  parent: SpanParent,
  kind: SpanKind = SpanKind.SERVER,
): { span: Span; inside: SpanParent } {
  const span = tracer.startSpan(name, { attributes, kind }, parent);
  return { span, inside: trace.setSpan(parent, span) };
}

/** Ends a span, marked as failed when `failed`. */
export function endSpan(span: Span, failed: boolean, reason?: string): void {
  if (reason !== undefined) span.setAttribute('portcullis.reason', reason);
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * The span of `parent` as a `traceparent`, when there is one (tracing on,
 * sampled or not): what the audit event records, so a call is found in the
 * traces by its trace id.
 */
export function traceparentOf(parent: SpanParent | undefined): string | undefined {
  const span = parent === undefined ? undefined : trace.getSpan(parent);
  if (span === undefined) return undefined;
  const ctx = span.spanContext();
  if (!isSpanContextValid(ctx)) return undefined;
  return `00-${ctx.traceId}-${ctx.spanId}-${(ctx.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * The trace context an outbound request made inside `parent`'s span carries
 * (`traceparent`, `tracestate`); undefined outside a span (tracing off).
 */
export function traceCarrierOf(parent: SpanParent): TraceCarrier | undefined {
  if (trace.getSpan(parent) === undefined) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(parent, carrier);
  return carrier.traceparent === undefined ? undefined : carrier;
}

/** An outbound request's headers with its trace context's (`traceparent`, `tracestate`) added. */
export function withTraceHeaders(
  headers: Record<string, string>,
  carrier: TraceCarrier | undefined,
): Record<string, string> {
  if (carrier?.traceparent === undefined) return headers;
  const added: Record<string, string> = { ...headers, traceparent: carrier.traceparent };
  if (carrier.tracestate !== undefined) added.tracestate = carrier.tracestate;
  return added;
}

export { SpanKind };
