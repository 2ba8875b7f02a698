/**
 * What the MCP endpoint needs from the gateway: who is calling, which tools
 * that caller sees, and running one call. The endpoint owns the wire (HTTP,
 * JSON-RPC, sessions); the host owns every decision about principals and tools.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CancelSignal } from '../cancellation.ts';

/** The caller behind an MCP request: an agent in a workspace. */
export interface McpPrincipal {
  agentId: string;
  workspaceId: string;
}

export interface ToolHost {
  /**
   * The principal the `Authorization` header stands for; undefined for no or a
   * bad credential (401). Called on EVERY request, so a revoked agent is
   * refused on its next request.
   */
  authenticate(
    authorization: string | undefined,
  ): McpPrincipal | undefined | Promise<McpPrincipal | undefined>;
  /** The tools this principal may see, in a stable order. */
  listTools(principal: McpPrincipal): Promise<Tool[]>;
  /**
   * Runs one tool call. A thrown `GatewayError` becomes a tool result with
   * `isError: true` and its public reason code; anything else becomes a
   * JSON-RPC internal error that says nothing more. `cancel` fires when the
   * client cancels the request, goes away, or ends its session.
   */
  callTool(
    principal: McpPrincipal,
    name: string,
    args: Record<string, unknown> | undefined,
    cancel: CancelSignal,
  ): Promise<CallToolResult>;
}
