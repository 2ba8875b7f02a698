/**
 * `prompts/get` of a connection's prompt, through the governed pipeline
 * (named-request.ts): the prompt named as the view names it, its arguments
 * hashed into the audit event, and its description as reviewed, not as the
 * server says it now (its messages are data).
 */
import type { GetPromptResult } from '@modelcontextprotocol/server';
import { GatewayError } from '../base/errors.ts';
import type { Caller } from '../identity/principals/principals.ts';
import {
  isInputRequired,
  type PromptOutcome,
  type PromptRequest,
} from '../mcp/server/tool-backend.ts';
import { type FeatureView, split } from './feature-names.ts';
import { type Forwarding, forwardNamed } from './named-request.ts';

export async function getPrompt(
  forwarding: Forwarding,
  caller: Caller,
  view: FeatureView,
  request: PromptRequest,
): Promise<PromptOutcome> {
  const [connection, name] = split(view, request.name, '__');
  const { result, allowed } = await forwardNamed(forwarding, caller, {
    view,
    connection,
    item: { kind: 'prompt', id: name, shown: request.name, field: 'name' },
    method: 'prompts/get',
    params: { name, ...(request.arguments ? { arguments: request.arguments } : {}) },
    context: request,
    unknown: () => new GatewayError('invalid_params', `Invalid params: no prompt ${request.name}`),
    arguments: { value: request.arguments },
  });
  if (isInputRequired(result)) return result;
  const { description: _said, ...rest } = result as GetPromptResult;
  const reviewed =
    allowed.pinned?.kind === 'prompt' ? allowed.pinned.contract.description : undefined;
  return (reviewed !== undefined ? { ...rest, description: reviewed } : rest) as GetPromptResult;
}
