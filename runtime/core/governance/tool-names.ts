/**
 * The MCP tool name of a connection's action. A connection named after its
 * provider (the usual single connection) exposes the catalog's names as they
 * are; any other connection prefixes its own name, so two Unikraft
 * connections (`prod`, `staging`) never collide. The name depends only on the
 * connection, never on what else an agent is granted, so it is stable, and it
 * fits the compiler's limit (a long one keeps its start and ends in a hash).
 */
import { fitToolName } from '../../../generated/catalog-rules.ts';
import type { Connection } from './model.ts';

export const CONNECTION_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

export function toolNameFor(
  connection: Pick<Connection, 'name' | 'provider'>,
  action: string,
): string {
  return connection.name === connection.provider
    ? action
    : fitToolName(`${connection.name}__${action}`);
}
