/**
 * One request forwarded to a remote MCP server in the caller's upstream
 * session (a tool call, a prompt, a resource, a list), and what came of it.
 */
import type { InputRequired } from '../../mcp/server/tool-backend.ts';
import type { ExecuteCall, Execution } from '../executor.ts';
import type { RemoteTarget } from './remote-tool-source.ts';

/** One request to forward: a tool call's context, with the method and params to send. */
export interface ForwardCall extends Omit<ExecuteCall, 'target' | 'arguments'> {
  target: Pick<RemoteTarget, 'connection' | 'source'>;
  method: string;
  params: Record<string, unknown>;
}

/** What a forwarded request did: the server's result (or its question), and what to audit. */
export interface Forwarded extends Omit<Execution, 'outcome'> {
  outcome: Record<string, unknown> | InputRequired;
}
