/**
 * A remote MCP connection's endpoint record, its pinned tool list and its
 * pinned prompts, resources and templates. All are governance: a change
 * moves the revision (agents' lists depend on them), and all go with their
 * connection (on delete cascade).
 */
import type { Selectable } from 'kysely';
import type { Classification } from '../../../../generated/catalog-format.ts';
import type {
  RemoteAuthKind,
  RemoteDraft,
  RemoteEndpoint,
  RemoteFeature,
  RemoteFeatures,
  RemoteOAuth,
  RemoteServerInfo,
  RemoteTool,
  RemoteToolContract,
  RemoteTransport,
  ReviewedContract,
} from '../../../core/model/remote.ts';
import type {
  RemoteEndpointRows,
  RemoteFeatureRows,
  RemoteToolRows,
} from '../../../core/ports/store.ts';
import type { RemoteEndpointTable, RemoteFeatureTable, RemoteToolTable } from '../tables/schema.ts';
import { sortedBy } from './order.ts';
import type { StoreContext } from './store-context.ts';

export function remoteEndpointRows(context: StoreContext): RemoteEndpointRows {
  const { db } = context;
  return {
    async put(endpoint) {
      const values = {
        url: endpoint.url,
        transport: endpoint.transport,
        revision: endpoint.revision,
        auth_kind: endpoint.authKind,
        header_names: JSON.stringify(endpoint.headerNames),
        server_info: endpoint.serverInfo === null ? null : JSON.stringify(endpoint.serverInfo),
        features: endpoint.features === null ? null : JSON.stringify(endpoint.features),
        draft: endpoint.draft,
        classification_overrides: JSON.stringify(endpoint.classificationOverrides),
        tools_expire_at: endpoint.toolsExpireAt,
        oauth: endpoint.oauth === null ? null : JSON.stringify(endpoint.oauth),
        updated_at: endpoint.updatedAt,
      };
      await context.mutate(
        (trx) =>
          trx
            .insertInto('remote_endpoints')
            .values({
              connection_id: endpoint.connectionId,
              workspace_id: endpoint.workspaceId,
              ...values,
            })
            .onConflict((conflict) => conflict.column('connection_id').doUpdateSet(values))
            .execute(),
        [{ field: 'connection', workspaceId: endpoint.workspaceId, id: endpoint.connectionId }],
      );
    },

    async byConnection(connectionId) {
      const row = await db
        .selectFrom('remote_endpoints')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .executeTakeFirst();
      return row && toEndpoint(row);
    },

    async all() {
      const rows = await db.selectFrom('remote_endpoints').selectAll().execute();
      return sortedBy(rows.map(toEndpoint), (row) => row.connectionId);
    },
  };
}

export function remoteToolRows(context: StoreContext): RemoteToolRows {
  const { db } = context;
  return {
    async replace(connection, tools) {
      await context.mutate(
        async (trx) => {
          await trx
            .deleteFrom('remote_tools')
            .where('workspace_id', '=', connection.workspaceId)
            .where('connection_id', '=', connection.id)
            .execute();
          // One statement per 100 rows keeps under SQLite's bound-parameter limit.
          for (let start = 0; start < tools.length; start += 100) {
            await trx
              .insertInto('remote_tools')
              .values(
                tools.slice(start, start + 100).map((tool) => ({
                  connection_id: connection.id,
                  workspace_id: connection.workspaceId,
                  name: tool.name,
                  contract: JSON.stringify(tool.contract),
                  contract_hash: tool.contractHash,
                  classification: tool.classification,
                  classification_rule: tool.classificationRule,
                  discovered_at: tool.discoveredAt,
                  changed_from: tool.changedFrom === null ? null : JSON.stringify(tool.changedFrom),
                })),
              )
              .execute();
          }
        },
        [{ field: 'connection', workspaceId: connection.workspaceId, id: connection.id }],
      );
    },

    async forConnection(connectionId) {
      const rows = await db
        .selectFrom('remote_tools')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .execute();
      return sortedBy(rows.map(toTool), (row) => row.name);
    },

    async all() {
      const rows = await db.selectFrom('remote_tools').selectAll().execute();
      return sortedBy(
        rows.map(toTool),
        (row) => row.connectionId,
        (row) => row.name,
      );
    },
  };
}

export function remoteFeatureRows(context: StoreContext): RemoteFeatureRows {
  const { db } = context;
  return {
    async replace(connection, features) {
      await context.mutate(
        async (trx) => {
          await trx
            .deleteFrom('remote_features')
            .where('workspace_id', '=', connection.workspaceId)
            .where('connection_id', '=', connection.id)
            .execute();
          // One statement per 100 rows keeps under SQLite's bound-parameter limit.
          for (let start = 0; start < features.length; start += 100) {
            await trx
              .insertInto('remote_features')
              .values(
                features.slice(start, start + 100).map((feature) => ({
                  connection_id: connection.id,
                  workspace_id: connection.workspaceId,
                  kind: feature.kind,
                  key: feature.key,
                  contract: JSON.stringify(feature.contract),
                  contract_hash: feature.contractHash,
                  discovered_at: feature.discoveredAt,
                  changed_from:
                    feature.changedFrom === null ? null : JSON.stringify(feature.changedFrom),
                })),
              )
              .execute();
          }
        },
        [{ field: 'connection', workspaceId: connection.workspaceId, id: connection.id }],
      );
    },

    async forConnection(connectionId) {
      const rows = await db
        .selectFrom('remote_features')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .execute();
      return sortedBy(rows.map(toFeature), (row) => row.key);
    },

    async all() {
      const rows = await db.selectFrom('remote_features').selectAll().execute();
      return sortedBy(
        rows.map(toFeature),
        (row) => row.connectionId,
        (row) => row.key,
      );
    },
  };
}

function toEndpoint(row: Selectable<RemoteEndpointTable>): RemoteEndpoint {
  return {
    connectionId: row.connection_id,
    workspaceId: row.workspace_id,
    url: row.url,
    transport: row.transport as RemoteTransport | null,
    revision: row.revision,
    authKind: row.auth_kind as RemoteAuthKind,
    headerNames: JSON.parse(row.header_names) as string[],
    serverInfo: row.server_info === null ? null : (JSON.parse(row.server_info) as RemoteServerInfo),
    features: row.features === null ? null : (JSON.parse(row.features) as RemoteFeatures),
    draft: row.draft as RemoteDraft | null,
    classificationOverrides: JSON.parse(row.classification_overrides) as Record<
      string,
      Classification
    >,
    toolsExpireAt: row.tools_expire_at,
    oauth: row.oauth === null ? null : (JSON.parse(row.oauth) as RemoteOAuth),
    updatedAt: row.updated_at,
  };
}

function toTool(row: Selectable<RemoteToolTable>): RemoteTool {
  return {
    connectionId: row.connection_id,
    workspaceId: row.workspace_id,
    name: row.name,
    contract: JSON.parse(row.contract) as RemoteToolContract,
    contractHash: row.contract_hash,
    classification: row.classification as Classification,
    classificationRule: row.classification_rule,
    discoveredAt: row.discovered_at,
    changedFrom:
      row.changed_from === null ? null : (JSON.parse(row.changed_from) as ReviewedContract),
  };
}

function toFeature(row: Selectable<RemoteFeatureTable>): RemoteFeature {
  return {
    connectionId: row.connection_id,
    workspaceId: row.workspace_id,
    kind: row.kind,
    key: row.key,
    contract: JSON.parse(row.contract),
    contractHash: row.contract_hash,
    discoveredAt: row.discovered_at,
    changedFrom: row.changed_from === null ? null : JSON.parse(row.changed_from),
  } as RemoteFeature;
}
