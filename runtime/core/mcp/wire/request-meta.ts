/**
 * What a request says about itself in `params._meta`: on the modern wire its
 * protocol version, the client's capabilities and identity and the log level
 * it wants (2026-07-28 `basic/index`, "Per-request protocol fields"); on
 * either wire a progress token and W3C trace context (`traceparent`,
 * `tracestate`, SEP-414).
 */
import type { ClientCapabilities, LoggingLevel } from '@modelcontextprotocol/server';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
} from './spec-names.ts';

export type ProgressToken = string | number;

/** W3C trace context, as the client sent it (validated, never invented). */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/** The modern wire's per-request fields. */
export interface ModernMeta {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  logLevel: LoggingLevel | undefined;
}

const LOG_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

export function metaOf(
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const meta = params?._meta;
  return isPlainObject(meta) ? meta : undefined;
}

/** The protocol version a request names in `_meta`, if it names one (the modern wire's mark). */
export function metaProtocolVersion(params: Record<string, unknown> | undefined): unknown {
  return metaOf(params)?.[PROTOCOL_VERSION_META_KEY];
}

/**
 * The modern wire's required fields, or `invalid_params` naming the one that
 * is missing or malformed (a request without them is malformed: -32602, 400).
 */
export function modernMetaOrThrow(params: Record<string, unknown> | undefined): ModernMeta {
  const meta = metaOf(params);
  if (meta === undefined) {
    throw new GatewayError('invalid_params', 'Invalid params: _meta is required', {
      field: 'params._meta',
    });
  }
  const protocolVersion = meta[PROTOCOL_VERSION_META_KEY];
  if (typeof protocolVersion !== 'string' || protocolVersion === '') {
    throw new GatewayError(
      'invalid_params',
      `Invalid params: _meta["${PROTOCOL_VERSION_META_KEY}"] must be a protocol version`,
      { field: `params._meta.${PROTOCOL_VERSION_META_KEY}` },
    );
  }
  const clientCapabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  if (!isPlainObject(clientCapabilities)) {
    throw new GatewayError(
      'invalid_params',
      `Invalid params: _meta["${CLIENT_CAPABILITIES_META_KEY}"] must be an object`,
      { field: `params._meta.${CLIENT_CAPABILITIES_META_KEY}` },
    );
  }
  const logLevel = meta[LOG_LEVEL_META_KEY];
  return {
    protocolVersion,
    clientCapabilities: clientCapabilities as ClientCapabilities,
    logLevel: isLoggingLevel(logLevel) ? logLevel : undefined,
  };
}

export function progressTokenOf(
  meta: Record<string, unknown> | undefined,
): ProgressToken | undefined {
  const token = meta?.progressToken;
  return typeof token === 'string' || (typeof token === 'number' && Number.isInteger(token))
    ? token
    : undefined;
}

/** `version-traceid-parentid-flags`, lowercase hex, ids not all zero (W3C Trace Context §3.2). */
const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace context a request carries, when it is well formed; anything else is ignored. */
export function traceContextOf(
  meta: Record<string, unknown> | undefined,
): TraceContext | undefined {
  const traceparent = meta?.[TRACEPARENT_META_KEY];
  if (
    typeof traceparent !== 'string' ||
    !TRACEPARENT.test(traceparent) ||
    traceparent.startsWith('ff')
  ) {
    return undefined;
  }
  const tracestate = meta?.[TRACESTATE_META_KEY];
  return typeof tracestate === 'string' && tracestate.length <= 512 && !/[\p{Cc}]/u.test(tracestate)
    ? { traceparent, tracestate }
    : { traceparent };
}

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return LOG_LEVELS.includes(value as LoggingLevel);
}

/** Whether a message at `level` is wanted by a request that asked for `minimum` (absent: none). */
export function logLevelWanted(minimum: LoggingLevel | undefined, level: LoggingLevel): boolean {
  return minimum !== undefined && LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(minimum);
}
