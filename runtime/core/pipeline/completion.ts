/**
 * `completion/complete` for an argument of a connection's prompt or
 * resource template, through the governed pipeline (named-request.ts):
 * suggestions from its server, for what the view names.
 */
import type { CompleteResult } from '@modelcontextprotocol/server';
import { GatewayError } from '../base/errors.ts';
import type { Caller } from '../identity/principals/principals.ts';
import type { CompletionRequest } from '../mcp/server/tool-backend.ts';
import { type FeatureView, requestContextOf, split } from './feature-names.ts';
import { type Forwarding, forwardNamed } from './named-request.ts';

export async function complete(
  forwarding: Forwarding,
  caller: Caller,
  view: FeatureView,
  request: CompletionRequest,
): Promise<CompleteResult> {
  const { ref } = request;
  const prompt = ref.type === 'ref/prompt';
  const shown = prompt ? ref.name : ref.uri;
  const [connection, name] = split(view, shown, prompt ? '__' : '+');
  const { result } = await forwardNamed(forwarding, caller, {
    view,
    connection,
    item: { kind: prompt ? 'prompt' : 'template', id: name, shown, field: 'ref' },
    method: 'completion/complete',
    params: {
      ref: prompt ? { ...ref, name } : { ...ref, uri: name },
      argument: request.argument,
      ...(request.arguments ? { context: { arguments: request.arguments } } : {}),
    },
    context: requestContextOf(request),
    unknown: () => new GatewayError('invalid_params', 'Invalid params: no such prompt or template'),
  });
  return result as CompleteResult;
}
