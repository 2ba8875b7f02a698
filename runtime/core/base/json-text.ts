/**
 * JSON text read the one way every JSON body is read (the MCP endpoint's,
 * the admin API's, the console's, the authorization server's): nesting no
 * deeper than `MAX_JSON_DEPTH`, checked before it is parsed, so nothing after
 * (re-encoding for an audit event, a schema's walk) recurses past what the
 * stack holds; then `JSON.parse`.
 */
import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth.ts';

export type JsonText = { value: unknown } | { refused: 'malformed' | 'too_deep' };

export function parseJsonText(text: string): JsonText {
  if (jsonTextNestsDeeperThan(text, MAX_JSON_DEPTH)) return { refused: 'too_deep' };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { refused: 'malformed' };
  }
}
