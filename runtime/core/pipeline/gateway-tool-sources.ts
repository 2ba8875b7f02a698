/**
 * Every connection's tool source: a native REST connection's compiled
 * catalog, a remote MCP connection's pinned tool list (with its pinned
 * prompts, resources and templates). The pinned lists live
 * in the store, so each governance snapshot reads them with the rest of its
 * rows (`read`), in the same transaction; validators are shared across
 * snapshots by contract hash.
 */

import type { ToolSource, ToolSources } from '../governance/tool-source.ts';
import type { Connection } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import type { Store } from '../ports/store.ts';
import { RemoteToolSource, RemoteValidators } from '../sources/remote-mcp/remote-tool-source.ts';

export class GatewayToolSources implements ToolSources {
  readonly #catalogs: ToolSources;
  readonly #remote: ReadonlyMap<string, RemoteToolSource>;
  readonly validators: RemoteValidators;

  constructor(
    catalogs: ToolSources,
    validators: RemoteValidators = new RemoteValidators(),
    remote: ReadonlyMap<string, RemoteToolSource> = new Map(),
  ) {
    this.#catalogs = catalogs;
    this.validators = validators;
    this.#remote = remote;
  }

  of(connection: Connection): ToolSource | undefined {
    return connection.provider === REMOTE_MCP_PROVIDER
      ? this.#remote.get(connection.id)
      : this.#catalogs.of(connection);
  }

  async read(store: Store): Promise<GatewayToolSources> {
    const [endpoints, tools, features] = await Promise.all([
      store.remoteEndpoints.all(),
      store.remoteTools.all(),
      store.remoteFeatures.all(),
    ]);
    const byConnection = groupedByConnection(tools);
    const featuresByConnection = groupedByConnection(features);
    const remote = new Map(
      endpoints.map((endpoint) => [
        endpoint.connectionId,
        new RemoteToolSource(
          endpoint,
          byConnection.get(endpoint.connectionId) ?? [],
          this.validators,
          featuresByConnection.get(endpoint.connectionId) ?? [],
        ),
      ]),
    );
    return new GatewayToolSources(this.#catalogs, this.validators, remote);
  }
}

function groupedByConnection<T extends { connectionId: string }>(
  rows: readonly T[],
): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) {
    const list = grouped.get(row.connectionId);
    if (list) list.push(row);
    else grouped.set(row.connectionId, [row]);
  }
  return grouped;
}
