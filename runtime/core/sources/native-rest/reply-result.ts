/**
 * A provider's HTTP reply as an MCP tool result: JSON replies as
 * `structuredContent` (and as text for clients that read only `content`),
 * other text as text, images and audio as `image` and `audio` content and
 * other bytes (PDFs, archives) as an embedded resource, each with its MIME type;
 * statuses the definition calls "still running" as a result rather than a
 * failure, and any other non-2xx as `isError` with the stable code `upstream_status`.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogAction } from '../../../../generated/catalog-format.ts';
import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import { withJsonText } from '../../mcp/wire/json-text.ts';
import type { OutboundReply } from '../../outbound/guarded-client.ts';
import { bytesContent, type ReplyBody, readReplyBody } from './reply-body.ts';

export function resultFromReply(action: CatalogAction, reply: OutboundReply): CallToolResult {
  const { status } = reply;
  if (status >= 300 && status < 400) {
    throw new GatewayError(
      'upstream_redirect_refused',
      `the provider answered ${status} (a redirect); Portcullis does not follow redirects`,
      { detail: { status } },
    );
  }
  const body = readReplyBody(reply);
  if (action.hints.stillRunningStatuses?.includes(status)) {
    const structured = { status: 'still_running', httpStatus: status, reply: replyValue(body) };
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
      reply: replyValue(body),
    };
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: `upstream_status: the provider answered HTTP ${status}\n${textOf(body)}`,
        },
      ],
      structuredContent: { error },
    };
  }
  switch (body.kind) {
    case 'none':
      return { content: [] };
    case 'text':
      return { content: [{ type: 'text', text: body.text }] };
    case 'bytes':
      return { content: [bytesContent(action.name, body.mimeType, body.bytes)] };
    case 'json': {
      // The provider's own JSON text is the text content, and what the reply writer
      // splices in for the structured content: no second serialisation.
      const structured = isPlainObject(body.value)
        ? withJsonText(body.value, body.text)
        : { result: body.value };
      return { content: [{ type: 'text', text: body.text }], structuredContent: structured };
    }
  }
}

/** The reply as a JSON value for a structured result; bytes are described, not inlined. */
function replyValue(body: ReplyBody): unknown {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'json':
      return body.value;
    case 'text':
      return body.text;
    case 'bytes':
      return { mimeType: body.mimeType, bytes: body.bytes.byteLength };
  }
}

function textOf(body: ReplyBody): string {
  switch (body.kind) {
    case 'none':
      return '';
    case 'json':
    case 'text':
      return body.text;
    case 'bytes':
      return `(${body.bytes.byteLength} bytes of ${body.mimeType})`;
  }
}
