/**
 * Connection names that belong to someone. A compiled provider's id names
 * its own connection (whose tools keep the catalog's names); `remote-mcp` is
 * the kind every remote connection is, no one connection's name; a curated
 * remote server's default name is the name of a connection to that server.
 * A connection of anything else never takes one, however its name was
 * chosen: typed by the operator (refused, naming the field), or derived
 * from a pasted config's key or the server's host (another name is derived).
 *
 * Tool names that belong to the gateway: the three discovery tools an agent
 * in discovery mode is served. No connection's tool is ever given one (the
 * name rule prefixes it with its connection's name, `tool-names.ts`), so none
 * can shadow them.
 */

import { GatewayError } from '../base/errors.ts';
import type { CatalogSet } from '../catalog/catalog-set.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';

export const SEARCH_ACTIONS = 'search_actions';
export const DESCRIBE_ACTION = 'describe_action';
export const CALL_ACTION = 'call_action';

/** The discovery tools' names: no connection's tool takes one. */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([
  SEARCH_ACTIONS,
  DESCRIBE_ACTION,
  CALL_ACTION,
]);

/** Who would name a connection: its provider, and a remote connection's address. */
export interface NameClaimant {
  provider: string;
  url?: string;
}

/** Whom the name belongs to, when the claimant may not take it; undefined when it may. */
export function reservedOwner(
  catalogs: CatalogSet,
  name: string,
  claimant: NameClaimant,
): string | undefined {
  if (name === REMOTE_MCP_PROVIDER) return 'the kind of every remote MCP connection';
  if (catalogs.get(name)) return claimant.provider === name ? undefined : `the ${name} provider`;
  const curated = catalogs.remotes.list.find(
    ({ connection }) => connection.defaults.connectionName === name || connection.id === name,
  )?.connection;
  if (!curated) return undefined;
  const matched = claimant.url === undefined ? undefined : catalogs.remotes.match(claimant.url);
  return claimant.provider === REMOTE_MCP_PROVIDER && matched?.definition.id === curated.id
    ? undefined
    : `${curated.name}'s server`;
}

/** Refuses (`invalid_input`, naming `field`) a name the operator gave that belongs to someone else. */
export function assertNameFree(
  catalogs: CatalogSet,
  name: string,
  claimant: NameClaimant,
  field: string,
): void {
  const owner = reservedOwner(catalogs, name, claimant);
  if (owner === undefined) return;
  throw new GatewayError(
    'invalid_input',
    `${field}: ${name} is reserved for ${owner}; choose another with --name`,
    { field },
  );
}

/** The first candidate (in order of preference) that belongs to no one else. */
export function firstFreeName(
  catalogs: CatalogSet,
  claimant: NameClaimant,
  candidates: ReadonlyArray<string | undefined>,
): string | undefined {
  return candidates.find(
    (name) => name !== undefined && reservedOwner(catalogs, name, claimant) === undefined,
  );
}
