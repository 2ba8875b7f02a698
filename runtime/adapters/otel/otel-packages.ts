/**
 * The OpenTelemetry packages `tracing-sdk.ts` loads when tracing is on,
 * imported statically here and this module imported lazily there. A dynamic
 * `import()` of a CommonJS package straight from the server's bundle
 * (esbuild) answers its `module.exports` as `default` only, so a named
 * export read off it is undefined ("NodeSDK is not a constructor" at start);
 * a static import is bundled with its named exports. (The SDK requires
 * every OTLP exporter itself, so the JSON one costs nothing more here.)
 */
export { OTLPTraceExporter as OtlpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
export { NodeSDK } from '@opentelemetry/sdk-node';
