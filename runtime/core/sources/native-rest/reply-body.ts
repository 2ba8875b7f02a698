/**
 * What a provider's reply body is: nothing, JSON, text, or bytes. JSON and
 * text by the content type (text in its declared charset); a body without a
 * content type is text when it is valid UTF-8; anything else (images, audio,
 * PDFs, archives) is bytes, never text it would mangle. JSON that does not
 * parse, or nests deeper than the gateway passes on, is
 * `upstream_reply_invalid`, stating the status: the call itself was made.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  isJsonMediaType,
  isTextMediaType,
  mediaTypeEssence,
} from '../../../../generated/catalog-rules.ts';
import { GatewayError } from '../../base/errors.ts';
import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from '../../base/json-depth.ts';
import type { OutboundReply } from '../../outbound/guarded-client.ts';

export type ReplyBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; mimeType: string; bytes: Buffer };

export function readReplyBody(reply: OutboundReply): ReplyBody {
  if (reply.body.byteLength === 0) return { kind: 'none' };
  const type = reply.headers['content-type'] ?? '';
  const mimeType = mediaTypeEssence(type);
  if (isJsonMediaType(mimeType)) {
    const text = reply.body.toString('utf8');
    // Deeper JSON could not be re-encoded, and would break the agent's parser.
    if (jsonTextNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      throw new GatewayError(
        'upstream_reply_invalid',
        `the provider answered HTTP ${reply.status} (the call was made), but its JSON nests deeper than ${MAX_JSON_DEPTH} levels, which the gateway does not pass on`,
        { detail: { status: reply.status, maxDepth: MAX_JSON_DEPTH } },
      );
    }
    try {
      return { kind: 'json', value: JSON.parse(text) as unknown, text };
    } catch (cause) {
      throw new GatewayError(
        'upstream_reply_invalid',
        `the provider answered HTTP ${reply.status} (the call was made) with a JSON content type and a body that is not JSON`,
        { detail: { status: reply.status }, cause },
      );
    }
  }
  if (mimeType === '') {
    const text = utf8(reply.body);
    return text === undefined
      ? { kind: 'bytes', mimeType: 'application/octet-stream', bytes: reply.body }
      : { kind: 'text', text };
  }
  if (isTextMediaType(mimeType)) return { kind: 'text', text: decode(reply.body, charsetOf(type)) };
  return { kind: 'bytes', mimeType, bytes: reply.body };
}

/** Bytes as MCP content: `image` and `audio` for those, an embedded resource for the rest. */
export function bytesContent(
  action: string,
  mimeType: string,
  bytes: Buffer,
): CallToolResult['content'][number] {
  const data = bytes.toString('base64');
  if (mimeType.startsWith('image/')) return { type: 'image', data, mimeType };
  if (mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType };
  return {
    type: 'resource',
    resource: { uri: `portcullis://reply/${action}`, mimeType, blob: data },
  };
}

function charsetOf(type: string): string {
  return /;\s*charset="?([\w.:-]+)"?/i.exec(type)?.[1]?.toLowerCase() ?? 'utf-8';
}

/** Text in its charset; a charset the platform does not know reads as UTF-8. */
function decode(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

function utf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
