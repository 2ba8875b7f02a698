/**
 * `resources/read` of a connection's resource, through the governed
 * pipeline (named-request.ts): the resource named as the view names it,
 * and what was read named as the agent asked for it. An MCP App's page is
 * served only as it was reviewed: a page, origin or permission the server
 * changed since is refused `contract_changed` (and the connection is
 * discovered again, so the change waits for review). A client that did not
 * declare the MCP Apps extension reads no page (`client_capability_missing`,
 * naming the extension, as a `tasks/*` without the tasks extension is).
 */
import type { ReadResourceResult } from '@modelcontextprotocol/server';
import { GatewayError } from '../base/errors.ts';
import type { Caller } from '../identity/principals/principals.ts';
import {
  isInputRequired,
  type ResourceOutcome,
  type ResourceRequest,
} from '../mcp/server/tool-backend.ts';
import { APPS_EXTENSION, appsRequired, clientTakesApps, isAppUri } from '../mcp/wire/apps.ts';
import type { AppContract } from '../model/remote.ts';
import { appContractOf, appHashOf } from '../sources/remote-mcp/app-contract.ts';
import { namespacedId } from '../sources/remote-mcp/remote-feature-contract.ts';
import type { AllowedFeatures } from './decision.ts';
import { type FeatureView, splitResource } from './feature-names.ts';
import { type Forwarding, forwardNamed } from './named-request.ts';

export async function readResource(
  forwarding: Forwarding,
  caller: Caller,
  view: FeatureView,
  request: ResourceRequest,
): Promise<ResourceOutcome> {
  const [connection, uri] = splitResource(view, request.uri);
  const { result } = await forwardNamed(forwarding, caller, {
    view,
    connection,
    item: { kind: 'resource', id: uri, shown: request.uri, field: 'uri' },
    method: 'resources/read',
    params: { uri },
    context: request,
    unknown: () =>
      new GatewayError('resource_not_found', undefined, { detail: { uri: request.uri } }),
    ...(isAppUri(request.uri) && !clientTakesApps(request.clientCapabilities)
      ? { refusal: appsMissing() }
      : {}),
    check: (outcome, allowed) => {
      const refused = appChange(outcome, allowed, request.uri);
      if (refused) forwarding.unpinned?.(allowed.connection.id);
      return refused;
    },
  });
  if (isInputRequired(result) || view.only !== undefined || connection === undefined)
    return result as ResourceOutcome;
  const read = result as ReadResourceResult;
  return {
    ...read,
    contents: (read.contents ?? []).map((content) => ({
      ...content,
      uri: namespacedId({ name: connection }, 'resource', content.uri),
    })),
  } as ReadResourceResult;
}

function appsMissing(): GatewayError {
  return new GatewayError(
    'client_capability_missing',
    `the client did not declare the ${APPS_EXTENSION} extension, which an MCP App's page (a ui:// resource) needs`,
    {
      field: 'uri',
      detail: { code: 'client_capability_missing', field: 'uri', ...appsRequired() },
    },
  );
}

/** The refusal of an app's page that is not the one pinned, or undefined. */
function appChange(
  outcome: Record<string, unknown>,
  allowed: AllowedFeatures,
  shown: string,
): GatewayError | undefined {
  const { pinned } = allowed;
  if (pinned?.kind !== 'resource' || !pinned.contract.app || isInputRequired(outcome))
    return undefined;
  const app = pinned.contract.app;
  // The declaration a list entry made is what a page without its own stands on, as at discovery.
  const listed = {
    _meta: {
      ui: {
        csp: app.csp,
        permissions: permissionsObject(app),
        ...(app.domain ? { domain: app.domain } : {}),
      },
    },
  };
  const read = appContractOf(outcome, listed);
  if (!('problem' in read) && appHashOf(read) === appHashOf(app)) return undefined;
  return new GatewayError(
    'contract_changed',
    `the app ${shown} changed since it was reviewed; an operator must review it again: portcullis review ${allowed.connection.name} ${pinned.key}`,
    { field: 'uri', detail: { code: 'contract_changed', field: 'uri' } },
  );
}

function permissionsObject(app: AppContract): Record<string, object> {
  return Object.fromEntries(app.permissions.map((name) => [name, {}]));
}
