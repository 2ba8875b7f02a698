/**
 * The MCP methods served inside a session: ping, tools/list, tools/call, and
 * the notifications a client may send. Parameters get a hand check (no schema
 * library on the hot path); the host does the rest.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Cancellation } from '../cancellation.ts';
import { GatewayError, publicError, REASONS } from '../errors.ts';
import { isPlainObject } from '../json-value.ts';
import {
  errorMessage,
  isId,
  type JsonRpcId,
  type OutgoingMessage,
  RpcCode,
  resultMessage,
} from './json-rpc.ts';
import type { Session } from './sessions.ts';
import type { McpPrincipal, ToolHost } from './tool-host.ts';

export interface MethodContext {
  host: ToolHost;
  session: Session;
  principal: McpPrincipal;
  /** From the HTTP request: cancels a call when the client goes away. */
  cancelOnDisconnect: ((call: Cancellation) => void) | undefined;
  /** Told about every failure that is not a `GatewayError` (the caller sees only "Internal error"). */
  report: (error: unknown) => void;
}

export async function answerRequest(
  context: MethodContext,
  id: JsonRpcId,
  method: string,
  params: Record<string, unknown> | undefined,
): Promise<OutgoingMessage> {
  switch (method) {
    case 'tools/call':
      return callTool(context, id, params);
    case 'tools/list':
      return listTools(context, id, params);
    case 'ping':
      return resultMessage(id, {});
    case 'initialize':
      return errorMessage(id, RpcCode.invalidRequest, 'Session already initialized');
    default:
      return errorMessage(id, RpcCode.methodNotFound, 'Method not found');
  }
}

/** Notifications need no answer; a cancellation aborts the call it names. */
export function takeNotification(
  session: Session,
  method: string,
  params: Record<string, unknown> | undefined,
): void {
  if (method !== 'notifications/cancelled' || params === undefined) return;
  const requestId = params.requestId;
  if (isId(requestId)) session.running.get(requestId)?.cancel();
}

async function listTools(
  { host, principal, report }: MethodContext,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
): Promise<OutgoingMessage> {
  // All tools come in one page, so no cursor this server issued can exist.
  if (params?.cursor !== undefined) {
    return errorMessage(id, RpcCode.invalidParams, 'Invalid params: unknown cursor');
  }
  try {
    return resultMessage(id, { tools: await host.listTools(principal) });
  } catch (error) {
    return hostFailure(id, error, report);
  }
}

async function callTool(
  { host, session, principal, cancelOnDisconnect, report }: MethodContext,
  id: JsonRpcId,
  params: Record<string, unknown> | undefined,
): Promise<OutgoingMessage> {
  const name = params?.name;
  const args = params?.arguments;
  if (typeof name !== 'string' || name === '') {
    return errorMessage(id, RpcCode.invalidParams, 'Invalid params: name must be a string');
  }
  if (args !== undefined && !isPlainObject(args)) {
    return errorMessage(id, RpcCode.invalidParams, 'Invalid params: arguments must be an object');
  }

  const cancellation = new Cancellation();
  cancelOnDisconnect?.(cancellation);
  session.running.set(id, cancellation);
  try {
    const result: CallToolResult = await host.callTool(principal, name, args, cancellation);
    return resultMessage(id, result);
  } catch (error) {
    if (error instanceof GatewayError) {
      if (!REASONS[error.code].expose) report(error);
      return resultMessage(id, toolErrorResult(error));
    }
    report(error);
    return errorMessage(id, RpcCode.internalError, 'Internal error');
  } finally {
    if (session.running.get(id) === cancellation) session.running.delete(id);
  }
}

/** A refused or failed tool call as the agent sees it: its reason code, never an internal message. */
function toolErrorResult(error: GatewayError): CallToolResult {
  const shown = publicError(error);
  return {
    isError: true,
    content: [{ type: 'text', text: `${shown.code}: ${shown.message}` }],
    structuredContent: { error: shown },
  };
}

/** A host failure outside a tool call: a server error carrying the public reason, if any. */
function hostFailure(
  id: JsonRpcId,
  error: unknown,
  report: (error: unknown) => void,
): OutgoingMessage {
  if (!(error instanceof GatewayError)) {
    report(error);
    return errorMessage(id, RpcCode.internalError, 'Internal error');
  }
  const shown = publicError(error);
  return errorMessage(id, RpcCode.serverError, `${shown.code}: ${shown.message}`, {
    error: shown,
  });
}
