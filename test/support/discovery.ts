/**
 * The actions search is measured over: every compiled action of
 * `generated/` (each provider connected under its own name, so the names
 * are the catalog's) and the curated remote servers' tools (connected under
 * the server's id, so prefixed `github__…`), made the way the pipeline
 * makes them, by `discoverableAction` of each connection's actions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalog } from '../../generated/catalog-format.ts';
import { providers } from '../../generated/index.ts';
import {
  type DiscoverableAction,
  discoverableAction,
} from '../../runtime/core/discovery/discoverable-action.ts';
import { REMOTE_MCP_PROVIDER } from '../../runtime/core/model/remote.ts';
import { remoteActionOf } from '../../runtime/core/sources/remote-mcp/remote-tool-source.ts';
import { CURATED_REMOTE_TOOLS } from '../runtime/core/discovery/curated-remote-tools.ts';
import { ROOT } from './fixtures.ts';

/** A compiled provider's catalog, read from `generated/`. */
export function compiledCatalog(id: string): Catalog {
  return JSON.parse(readFileSync(join(ROOT, 'generated', id, 'catalog.json'), 'utf8')) as Catalog;
}

/** Every compiled action, its provider connected under `connection` (default: the provider's id). */
export function compiledActions(id: string, connection: string = id): DiscoverableAction[] {
  return compiledCatalog(id).actions.map((action) =>
    discoverableAction({ name: connection, provider: id }, action),
  );
}

/** The curated remote servers' tools, each server connected under its id. */
export function curatedRemoteActions(): DiscoverableAction[] {
  return Object.entries(CURATED_REMOTE_TOOLS).flatMap(([server, tools]) =>
    tools.map((tool) =>
      discoverableAction(
        { name: server, provider: REMOTE_MCP_PROVIDER },
        remoteActionOf({
          connectionId: server,
          workspaceId: 'w',
          name: tool.name,
          contract: {
            name: tool.name,
            description: tool.description,
            inputSchema: {
              type: 'object',
              properties: Object.fromEntries(tool.parameters.map((p) => [p, { type: 'string' }])),
            },
          },
          contractHash: '',
          classification: tool.classification,
          classificationRule: 'fixture',
          discoveredAt: '2026-01-01T00:00:00.000Z',
          changedFrom: null,
        }),
      ),
    ),
  );
}

/** What an agent granted every compiled provider and every curated server may call. */
export function everyAction(): DiscoverableAction[] {
  return [...providers.flatMap(({ id }) => compiledActions(id)), ...curatedRemoteActions()];
}
