/**
 * The one name rule for tools: the MCP tool name of a connection's action,
 * unique in its workspace by construction, and the check that says so.
 *
 * A name with `__` in it is always `<connection>__<tool>`: connection names
 * have no underscore, so the first `__` splits it, and a fitted name keeps
 * the whole prefix (32 characters and `__` are well inside the part
 * `fitToolName` keeps). Only the compiler's names go unprefixed: a native
 * connection named after its provider (the usual single one) exposes its
 * compiled catalog's names as they are (`coolify_list_applications`: the
 * compiler makes each start with its provider's id and never hold `__`, and
 * a name that does not is prefixed like any other).
 * A remote MCP server picks its own tool names, so a remote connection's are
 * always prefixed, whatever the connection is called. The name depends only
 * on the connection, never on what else an agent is granted, so it is stable.
 */
import { fitToolName, providerToolPrefix } from '../../../generated/catalog-rules.ts';
import { GatewayError } from '../base/errors.ts';
import type { Connection } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import { RESERVED_TOOL_NAMES } from './reserved-names.ts';

export const CONNECTION_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** What separates a connection's name from its tool's. */
export const TOOL_NAME_SEPARATOR = '__';

export function toolNameFor(
  connection: Pick<Connection, 'name' | 'provider'>,
  action: string,
): string {
  return isCompiledName(connection, action)
    ? action
    : fitToolName(`${connection.name}${TOOL_NAME_SEPARATOR}${action}`);
}

/**
 * A native connection named after its provider, and a name as the compiler
 * makes them (its provider's prefix, no `__`) that is none of the gateway's
 * own tools' (`search_actions`, …): shown as it is.
 */
function isCompiledName(
  connection: Pick<Connection, 'name' | 'provider'>,
  action: string,
): boolean {
  return (
    connection.provider !== REMOTE_MCP_PROVIDER &&
    connection.name === connection.provider &&
    action.startsWith(providerToolPrefix(connection.provider)) &&
    !action.includes(TOOL_NAME_SEPARATOR) &&
    !RESERVED_TOOL_NAMES.has(action)
  );
}

/** An action of a connection, as the name rule sees it. */
export interface NamedAction {
  connection: Pick<Connection, 'id' | 'name' | 'provider'>;
  action: string;
}

/** Two actions whose tool names would be the same. */
export interface ToolNameCollision {
  name: string;
  first: NamedAction;
  second: NamedAction;
}

/**
 * Entries by tool name, and every pair that would share one. A shared name
 * is served by neither: which one an agent reached would otherwise depend on
 * the order rows were read in.
 */
export function toolsByName<T>(
  entries: Iterable<T>,
  named: (entry: T) => NamedAction,
): { tools: Map<string, T>; collisions: ToolNameCollision[] } {
  const tools = new Map<string, T>();
  const owners = new Map<string, NamedAction>();
  const collisions: ToolNameCollision[] = [];
  for (const entry of entries) {
    const second = named(entry);
    const name = toolNameFor(second.connection, second.action);
    const first = owners.get(name);
    if (first) {
      collisions.push({ name, first, second });
      tools.delete(name);
      continue;
    }
    owners.set(name, second);
    tools.set(name, entry);
  }
  return { tools, collisions };
}

/** Every pair of actions that would share a tool name (none, when the rule holds). */
export function toolNameCollisions(actions: Iterable<NamedAction>): ToolNameCollision[] {
  return toolsByName(actions, (named) => named).collisions;
}

/** The refusal of a collision, naming both owners (connection and tool). */
export function toolNameCollisionError(collision: ToolNameCollision): GatewayError {
  const { name, first, second } = collision;
  const owner = (named: NamedAction) => `${named.connection.name} ${JSON.stringify(named.action)}`;
  return new GatewayError(
    'conflict',
    `two tools would be named ${name}: ${owner(first)} and ${owner(second)}; no tool takes another's name`,
    {
      detail: {
        tool: name,
        owners: [first, second].map((named) => ({
          connection: named.connection.name,
          action: named.action,
        })),
      },
    },
  );
}
