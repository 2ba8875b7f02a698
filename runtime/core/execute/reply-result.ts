/**
 * A provider's HTTP reply as an MCP tool result: JSON replies as
 * `structuredContent` (and as text for clients that read only `content`),
 * other text as text, statuses the definition calls "still running" as a
 * result rather than a failure, and any other non-2xx as `isError` with the
 * stable code `upstream_status`.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogAction } from '../../../generated/catalog-format.ts';
import { GatewayError } from '../errors.ts';
import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from '../json-depth.ts';
import { isPlainObject } from '../json-value.ts';
import { withJsonText } from '../mcp/json-text.ts';
import type { OutboundReply } from '../outbound/guarded-client.ts';

export function resultFromReply(action: CatalogAction, reply: OutboundReply): CallToolResult {
  const { status } = reply;
  if (status >= 300 && status < 400) {
    throw new GatewayError(
      'upstream_redirect_refused',
      `the provider answered ${status} (a redirect); Portcullis does not follow redirects`,
      { detail: { status } },
    );
  }
  const { body, text } = decodeBody(reply);
  if (action.hints.stillRunningStatuses?.includes(status)) {
    const structured = { status: 'still_running', httpStatus: status, reply: body };
    return {
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured,
    };
  }
  if (status < 200 || status >= 300) {
    const error = {
      code: 'upstream_status',
      message: `the provider answered HTTP ${status}`,
      status,
      reply: body,
    };
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: `upstream_status: the provider answered HTTP ${status}\n${text}`,
        },
      ],
      structuredContent: { error },
    };
  }
  if (body === undefined) return { content: [] };
  if (typeof body === 'string') return { content: [{ type: 'text', text }] };
  // The provider's own JSON text is the text content, and what the reply writer
  // splices in for the structured content: no second serialisation.
  const structured = isPlainObject(body) ? withJsonText(body, text) : { result: body };
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * The body as text, and as JSON when the reply says it is. A body that does
 * not parse, or nests deeper than the gateway passes on (it could not be
 * re-encoded, and would break the agent's parser), is `upstream_reply_invalid`,
 * stating the status: the call itself was made.
 */
function decodeBody(reply: OutboundReply): { body: unknown; text: string } {
  if (reply.body.byteLength === 0) return { body: undefined, text: '' };
  const type = reply.headers['content-type'] ?? '';
  const text = reply.body.toString('utf8');
  if (JSON_TYPE.test(type)) {
    if (jsonTextNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      throw new GatewayError(
        'upstream_reply_invalid',
        `the provider answered HTTP ${reply.status} (the call was made), but its JSON nests deeper than ${MAX_JSON_DEPTH} levels, which the gateway does not pass on`,
        { detail: { status: reply.status, maxDepth: MAX_JSON_DEPTH } },
      );
    }
    try {
      return { body: JSON.parse(text) as unknown, text };
    } catch (cause) {
      throw new GatewayError(
        'upstream_reply_invalid',
        `the provider answered HTTP ${reply.status} (the call was made) with a JSON content type and a body that is not JSON`,
        { detail: { status: reply.status }, cause },
      );
    }
  }
  return { body: text, text };
}

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;
