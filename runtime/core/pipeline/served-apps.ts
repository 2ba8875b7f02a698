/**
 * Which tools are served with their MCP App: a remote tool that names a
 * `ui://` page keeps its `_meta.ui` only while that page is served (pinned,
 * reviewed as it is now, enabled, and the connection's apps not turned
 * off); otherwise the tool is served without it, never refused for it. On
 * `/mcp` the page is named under its connection (`ui://<connection>/…`).
 */
import { appsTurnedOff, policyRefusal } from '../governance/decide.ts';
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import type { ToolTarget } from '../governance/tool-source.ts';
import { LEGACY_RESOURCE_URI_KEY } from '../mcp/wire/apps.ts';
import type { ToolApp } from '../model/remote.ts';
import { featureKey, namespacedId } from '../sources/remote-mcp/remote-feature-contract.ts';
import type { RemoteAction, RemoteToolSource } from '../sources/remote-mcp/remote-tool-source.ts';

/** The tool's app when its page is served now, or undefined. */
export function servedAppOf(snapshot: GovernanceSnapshot, target: ToolTarget): ToolApp | undefined {
  if (target.source.kind !== 'remote_mcp') return undefined;
  const ui = (target.action as RemoteAction).contract.ui;
  if (ui === undefined || appsTurnedOff(target.connection)) return undefined;
  const key = featureKey('resource', ui.resourceUri);
  const pinned = (target.source as RemoteToolSource).features.get(key);
  if (pinned?.kind !== 'resource' || pinned.contract.app === undefined) return undefined;
  const policy = snapshot.policyOf(target.connection.id, key);
  return policyRefusal(policy, pinned.contractHash) === null ? ui : undefined;
}

/** A tool's `_meta` naming its app as the view names it (the server's uri on `/mcp/c/<connection>`). */
export function appMetaOf(ui: ToolApp, shownUri: string): Record<string, unknown> {
  return {
    ui: { ...(ui.visibility ? { visibility: ui.visibility } : {}), resourceUri: shownUri },
    [LEGACY_RESOURCE_URI_KEY]: shownUri,
  };
}

/** The app's page as `/mcp` names it. */
export function appUriOnGateway(target: ToolTarget, ui: ToolApp): string {
  return namespacedId(target.connection, 'resource', ui.resourceUri);
}
