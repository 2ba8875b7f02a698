/** What both wires answer with: the backend, the server's identity, the state sealer, the log. */
import type { Implementation } from '@modelcontextprotocol/server';
import type { GatewayError } from '../../base/errors.ts';
import type { RequestStateSealer } from './request-state.ts';
import type { McpPrincipal, ToolBackend } from './tool-backend.ts';

export interface WireContext<P extends McpPrincipal> {
  backend: ToolBackend<P>;
  serverInfo: Implementation;
  /** `{ "io.modelcontextprotocol/serverInfo": serverInfo }`, made once: every modern result carries it. */
  serverMeta: Readonly<Record<string, unknown>>;
  sealer: RequestStateSealer;
  /** Told about every failure the caller sees only as "internal error" (the operator's log). */
  report: (error: unknown) => void;
  /**
   * The `WWW-Authenticate` challenge a refused tool call carries in
   * `_meta["mcp/www_authenticate"]` (a missing scope, so the client can step up); undefined for none.
   */
  challengeOf: (error: GatewayError) => string | undefined;
  /**
   * The challenge a refused tool call is answered with as HTTP 403 instead of
   * a result (MCP's step-up, `insufficient_scope`), for this caller's step-up
   * form (its client's, else the endpoint's); undefined: a result.
   */
  stepUpOf: (error: GatewayError, principal: P) => string | undefined;
}
