/**
 * One connection's tools under the names its own server gives them, for
 * `/mcp/c/<connection>`: a client configured for that server sees what it
 * expects. Every call still goes through the gateway's governance under the
 * aggregated name (the audit log names it so); this view only renames.
 */
import type { Tool } from '@modelcontextprotocol/server';
import type { ReasonCode } from '../errors.ts';
import type { Connection } from '../governance/model.ts';
import { toolNameFor } from '../governance/tool-names.ts';
import type { RefusedToolCall, ToolBackend, ToolCall, ToolOutcome } from '../mcp/tool-backend.ts';
import type { Caller } from '../principals/principals.ts';
import type { GovernedTools } from './governed-tools.ts';

export class ConnectionTools implements ToolBackend<Caller> {
  readonly #tools: GovernedTools;
  readonly #connection: string;

  constructor(tools: GovernedTools, connection: string) {
    this.#tools = tools;
    this.#connection = connection;
  }

  authenticate(authorization: string | undefined): Promise<Caller | undefined> {
    return this.#tools.authenticate(authorization, this.#connection);
  }

  async listTools(caller: Caller): Promise<Tool[]> {
    const listed = await this.#tools.listTools(caller);
    const mine: Tool[] = [];
    for (const tool of listed) {
      const target = caller.snapshot.resolveTool(caller.workspaceId, tool.name);
      if (target?.connection.name === this.#connection)
        mine.push({ ...tool, name: target.action.name });
    }
    return mine;
  }

  describeTool(caller: Caller, name: string): Tool | undefined {
    const connection = this.#of(caller);
    const tool = connection && this.#tools.describeTool(caller, toolNameFor(connection, name));
    return tool && { ...tool, name };
  }

  callTool(caller: Caller, call: ToolCall): Promise<ToolOutcome> {
    const connection = this.#of(caller);
    // An unknown connection's tool is an unknown tool, refused (and audited) as such.
    return this.#tools.callTool(caller, {
      ...call,
      name: connection ? toolNameFor(connection, call.name) : `${this.#connection}__${call.name}`,
    });
  }

  recordRefusedCall(caller: Caller, call: RefusedToolCall, reason: ReasonCode): Promise<void> {
    const connection = this.#of(caller);
    return this.#tools.recordRefusedCall(
      caller,
      {
        ...call,
        name: connection ? toolNameFor(connection, call.name) : call.name,
      },
      reason,
    );
  }

  watchTools(caller: Caller, listener: () => void): () => void {
    return this.#tools.watchTools(caller, listener);
  }

  #of(caller: Caller): Connection | undefined {
    return caller.snapshot.connectionByName(caller.workspaceId, this.#connection);
  }
}
