/**
 * What a method answers one request with: the wire's context, and the
 * request's own (who asks, in which era, the reply being worked out, how to
 * ask the client for input). Both wires build one; the methods, the input
 * rounds and the answer writer read it.
 */
import type { ClientCapabilities, InputRequest, LoggingLevel } from '@modelcontextprotocol/server';
import type { Cancellation } from '../../base/cancellation.ts';
import type { SpanParent } from '../../base/tracing.ts';
import type { JsonRpcId } from '../wire/json-rpc.ts';
import type { McpEra } from '../wire/protocol-version.ts';
import type { PendingReply } from './pending-reply.ts';
import type { Session } from './sessions.ts';
import type { DecidedToolCall, McpPrincipal } from './tool-backend.ts';
import type { WireContext } from './wire-context.ts';

/** Everything a method needs to answer one request: the wire's context, and the request's own. */
export interface RequestScope<P extends McpPrincipal> extends WireContext<P> {
  principal: P;
  era: McpEra;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  /** The lowest log level the client wants messages for; undefined: none. */
  logLevel: LoggingLevel | undefined;
  /** The reply being worked out: notifications about the request go on it. */
  reply: PendingReply;
  /** A legacy session's running calls by id, so `notifications/cancelled` can reach them. */
  running: Map<JsonRpcId, Cancellation> | undefined;
  /** From the HTTP request: its span, the parent of its calls' spans (tracing on). */
  span: SpanParent | undefined;
  /** From the HTTP request: cancels a call when the client goes away. */
  cancelOnDisconnect: ((call: Cancellation) => void) | undefined;
  /**
   * Legacy sessions: asks the client for input with server-to-client requests
   * on the reply stream, and resolves with its answers by key.
   */
  askClient:
    | ((
        requests: Record<string, InputRequest>,
        cancel: Cancellation,
      ) => Promise<Record<string, unknown>>)
    | undefined;
  /** A legacy request's session: its resource subscriptions are held there. */
  session: Session | undefined;
  /** Sends a notification on a legacy session's standalone stream, on whichever replica holds it. */
  announce: ((session: Session, message: unknown) => void) | undefined;
  /** A `tools/call` the modern wire decided before answering it (its headers checked against the tool). */
  decidedCall?: DecidedToolCall | undefined;
}
