/**
 * One span per MCP request: a POST of one JSON-RPC request is answered inside
 * a span named after its method (from a closed list: a made-up method is
 * `mcp request`), the child of the trace the request carries: its
 * `_meta.traceparent` (SEP-414, either wire) first, else its HTTP
 * `traceparent` header. The pipeline's spans (governance, upstream, audit)
 * are its children: the request is served with its span as `span` (the
 * scope's, then each call's), passed along explicitly (`base/tracing.ts`).
 * The span ends with the reply, or with its event stream. A no-op while
 * tracing is off.
 */
import { isPlainObject } from '../../base/json-value.ts';
import { endSpan, incomingContext, startSpan } from '../../base/tracing.ts';
import type { McpHttpRequest, McpHttpResponse } from '../wire/http-exchange.ts';
import { headerValue } from '../wire/http-exchange.ts';
import { metaOf, traceContextOf } from '../wire/request-meta.ts';

const METHODS = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'completion/complete',
  'logging/setLevel',
  'subscriptions/listen',
]);

export function tracedRequest(
  request: McpHttpRequest,
  serve: (request: McpHttpRequest) => Promise<McpHttpResponse>,
): Promise<McpHttpResponse> {
  const { body } = request;
  if (
    request.method !== 'POST' ||
    !isPlainObject(body) ||
    typeof body.method !== 'string' ||
    body.id === undefined
  ) {
    return serve(request);
  }
  const params = isPlainObject(body.params) ? body.params : undefined;
  const carried =
    traceContextOf(metaOf(params)) ??
    traceContextOf({
      traceparent: headerValue(request.headers, 'traceparent'),
      tracestate: headerValue(request.headers, 'tracestate'),
    });
  const method = METHODS.has(body.method) ? body.method : undefined;
  const { span, inside } = startSpan(
    method === undefined ? 'mcp request' : `mcp ${method}`,
    { 'rpc.system': 'jsonrpc', 'mcp.method.name': method ?? 'other' },
    incomingContext(carried),
  );
  return serve({ ...request, span: inside }).then(
    (response) => {
      span.setAttribute('http.response.status_code', response.status);
      const failed = response.status >= 400;
      if (response.stream) response.stream.onClose(() => endSpan(span, failed));
      else endSpan(span, failed);
      return response;
    },
    (error: unknown) => {
      endSpan(span, true);
      throw error;
    },
  );
}
