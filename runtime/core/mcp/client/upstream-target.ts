/**
 * Where a remote MCP server is reached and with what: its address, the
 * connection's credential headers and the redactor that keeps them out of
 * what is read back. Both transports (Streamable HTTP and HTTP+SSE) are
 * given one.
 */
import type { Redactor } from '../../outbound/redaction.ts';

export interface UpstreamTarget {
  url: URL;
  /** The connection's credential headers, already checked. */
  headers: Record<string, string>;
  redactor: Redactor;
}
