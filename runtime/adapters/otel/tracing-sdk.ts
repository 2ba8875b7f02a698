/**
 * The OpenTelemetry Node SDK, started only when the standard `OTEL_*`
 * variables ask for traces: an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or `OTEL_TRACES_EXPORTER=otlp`,
 * and not `OTEL_SDK_DISABLED=true`. Otherwise neither the SDK nor the
 * exporter is even loaded (a dynamic import), so a start without tracing
 * pays nothing, and the core's `@opentelemetry/api` calls stay no-ops.
 *
 * The SDK builds the exporter and its batch processor from the environment,
 * as the specification says: OTLP over HTTP as protobuf by default (the
 * specification's default, and a third of JSON's CPU and size per span),
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (or `OTEL_EXPORTER_OTLP_PROTOCOL`)
 * `http/json` or `grpc` for the others; `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` and `_ARG`,
 * `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_*`; W3C trace context as the
 * propagator. No metrics or logs go through it (`/metrics` is Prometheus).
 *
 * Its context manager is `SynchronousContextManager`, not the Node SDK's
 * default AsyncLocalStorage one: the core hands its trace along explicitly
 * (`core/base/tracing.ts`), and an AsyncLocalStorage entered once costs a
 * promise hook on every promise of the process (+10–15% CPU per call on
 * Node 20, measured), sampled or not.
 */
import { SynchronousContextManager } from './synchronous-context.ts';

export interface Tracing {
  /** Sends the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/** Whether the environment asks for traces. */
export function tracingWanted(environment: Record<string, string | undefined>): boolean {
  if (environment.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (environment.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim());
  if (exporters.includes('none')) return false;
  return Boolean(
    environment.OTEL_EXPORTER_OTLP_ENDPOINT ||
      environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
      exporters.includes('otlp'),
  );
}

/** Starts the SDK when the environment asks for traces; undefined when it does not. */
export async function startTracing(
  environment: Record<string, string | undefined>,
): Promise<Tracing | undefined> {
  if (!tracingWanted(environment)) return undefined;
  const { NodeSDK, OtlpJsonTraceExporter } = await import('./otel-packages.ts');
  // JSON is the exporter package.json names; for any other protocol the SDK builds the exporter
  // the protocol says (`http/protobuf` when none is named), with the same batch processor.
  const protocol = (
    environment.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    environment.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  const traceExporter = protocol === 'http/json' ? new OtlpJsonTraceExporter() : undefined;
  // The service is `portcullis` unless the environment names it.
  const named =
    Boolean(environment.OTEL_SERVICE_NAME) ||
    /(^|,)\s*service\.name\s*=/.test(environment.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    ...(named ? {} : { serviceName: 'portcullis' }),
    ...(traceExporter ? { traceExporter } : {}),
    contextManager: new SynchronousContextManager(),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  // A collector that is down at exit loses the last spans; that is no reason to fail the exit
  // (while running, the SDK reports a failed export through its own diagnostics and goes on).
  return { shutdown: () => sdk.shutdown().catch(() => {}) };
}
