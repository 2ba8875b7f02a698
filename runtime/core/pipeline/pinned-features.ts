/**
 * What an agent may see of a connection's prompts, resources and templates:
 * only what an operator reviewed. An item a server lists is served when its
 * contract (what the agent reads of it) hashes to the one reviewed and its
 * policy is enabled; any other is held: a changed one (`contract_changed`),
 * a new one (`action_quarantined`), one an operator disabled. An MCP App's
 * `ui://` page is listed only to a client that declared the extension. A get or read
 * of a held item is refused with the same reason (`decision.ts` decides it,
 * `heldRefusal` says it); a resource the server does not list (a template's,
 * a link a tool returned) is read as data.
 */
import { GatewayError, type ReasonCode } from '../base/errors.ts';
import { appsTurnedOff, policyRefusal } from '../governance/decide.ts';
import type { GovernanceSnapshot } from '../governance/snapshot.ts';
import { isAppUri } from '../mcp/wire/apps.ts';
import type { Connection } from '../model/governance.ts';
import type { RemoteFeatureKind } from '../model/remote.ts';
import {
  featureContractOf,
  featureHashOf,
  featureIdOf,
  featureKey,
  listedFeature,
  namespacedId,
} from '../sources/remote-mcp/remote-feature-contract.ts';
import type { RemoteToolSource } from '../sources/remote-mcp/remote-tool-source.ts';

export interface ServedList {
  /** What the agent is shown: each reviewed item's pinned contract, named for its view. */
  items: object[];
  /** What was held back, as the agent would have seen it named, and why. */
  held: Array<{ name: string; reason: ReasonCode }>;
  /** Something was listed that the pins do not know yet (new, or changed since the last discovery). */
  unpinned: boolean;
}

export function servedList(
  snapshot: GovernanceSnapshot,
  connection: Connection,
  source: RemoteToolSource,
  kind: RemoteFeatureKind,
  listed: readonly unknown[],
  namespaced: boolean,
  /** The client declared the MCP Apps extension: `ui://` pages are shown to it. */
  apps: boolean,
): ServedList {
  const served: ServedList = { items: [], held: [], unpinned: false };
  for (const entry of listed) {
    const feature = featureContractOf(kind, entry);
    if ('problem' in feature) {
      served.held.push({ name: kind, reason: 'mcp_remote_malformed_response' });
      continue;
    }
    const id = featureIdOf(feature);
    const shown = namespaced ? namespacedId(connection, kind, id) : id;
    const key = featureKey(kind, id);
    const pinned = source.features.get(key);
    // A list cannot show an app's page: it is held to the page pinned, which each read is checked against.
    if (feature.kind === 'resource' && pinned?.kind === 'resource' && pinned.contract.app)
      feature.contract.app = pinned.contract.app;
    const hash = featureHashOf(feature);
    const off = kind === 'resource' && isAppUri(id) && appsTurnedOff(connection);
    const reason = off
      ? 'action_disabled'
      : policyRefusal(snapshot.policyOf(connection.id, key), hash);
    if (reason === null) {
      // A client that renders no apps is shown no page (nothing is held: it was never its to see).
      if (apps || kind === 'prompt' || !isAppUri(id))
        served.items.push(listedFeature(feature, shown));
      continue;
    }
    served.held.push({ name: shown, reason });
    if (pinned?.contractHash !== hash && !off) served.unpinned = true;
  }
  return served;
}

/** A prompt, resource or template an agent names in a get, read or completion. */
export interface NamedFeature {
  kind: RemoteFeatureKind;
  /** The server's name for it. */
  id: string;
  /** As the agent named it. */
  shown: string;
  /** The request field that named it. */
  field: string;
}

/**
 * The refusal of a prompt, resource or template its review state holds back
 * (`reason`, from the decision on the request that names it). The code and
 * field go in the JSON-RPC error's data too: the agent's client reads them there.
 */
export function heldRefusal(
  reason: ReasonCode,
  connection: Connection,
  named: NamedFeature,
  key: string,
): GatewayError {
  return new GatewayError(reason, heldMessage(reason, connection, named, key), {
    field: named.field,
    detail: { code: reason, field: named.field },
  });
}

function heldMessage(
  reason: ReasonCode,
  connection: Connection,
  named: NamedFeature,
  key: string,
): string {
  const review = `portcullis review ${connection.name} ${key}`;
  switch (reason) {
    case 'contract_changed':
      return `${named.kind} ${named.shown} changed since it was reviewed; an operator must review it again: ${review}`;
    case 'action_disabled':
      if (named.kind === 'resource' && isAppUri(named.id) && appsTurnedOff(connection))
        return `an operator has turned MCP Apps off on ${connection.name}: portcullis apps ${connection.name} on`;
      return `an operator has disabled ${named.kind} ${named.shown}: portcullis enable ${connection.name} ${key}`;
    case 'action_retired':
      return `${named.kind} ${named.shown} is no longer listed by its server`;
    default:
      return `${named.kind} ${named.shown} is not served until an operator reviews it: ${review}`;
  }
}
