/**
 * `resources/read` of a connection's resource, through the governed
 * pipeline (named-request.ts): the resource named as the view names it,
 * and what was read named as the agent asked for it.
 */
import type { ReadResourceResult } from '@modelcontextprotocol/server';
import { GatewayError } from '../base/errors.ts';
import type { Caller } from '../identity/principals/principals.ts';
import {
  isInputRequired,
  type ResourceOutcome,
  type ResourceRequest,
} from '../mcp/server/tool-backend.ts';
import { namespacedId } from '../sources/remote-mcp/remote-feature-contract.ts';
import { type FeatureView, split } from './feature-names.ts';
import { type Forwarding, forwardNamed } from './named-request.ts';

export async function readResource(
  forwarding: Forwarding,
  caller: Caller,
  view: FeatureView,
  request: ResourceRequest,
): Promise<ResourceOutcome> {
  const [connection, uri] = split(view, request.uri, '+');
  const { result } = await forwardNamed(forwarding, caller, {
    view,
    connection,
    item: { kind: 'resource', id: uri, shown: request.uri, field: 'uri' },
    method: 'resources/read',
    params: { uri },
    context: request,
    unknown: () =>
      new GatewayError('resource_not_found', undefined, { detail: { uri: request.uri } }),
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
