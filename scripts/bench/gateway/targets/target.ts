/** What the runner asks of a benchmarked configuration, and what a started one hands back. */

export interface StartedTarget {
  /** The MCP endpoint, or for `http` mode the URL to GET. */
  url: string;
  /** Sent with every request (an agent key, say). */
  headers: Record<string, string>;
  /** `tools/call` params: ignored in `http` mode. */
  toolName: string;
  arguments: Record<string, unknown>;
  mode: 'mcp' | 'http';
  /**
   * How MCP messages travel: `streamable-http` (the default) or `http+sse`, the
   * 2024-11-05 transport (a GET stream announces a message URL; POSTs there are
   * answered 202 and the responses arrive on the stream).
   */
  transport?: 'streamable-http' | 'http+sse';
  /** The MCP revision family the load generator speaks (default `legacy`, 2025-06-18). */
  wire?: 'legacy' | 'modern';
  /**
   * `per-slot` (the default): one MCP session per concurrency slot. `shared`: one
   * session for all slots, for a server that cannot serve several sessions.
   */
  sessions?: 'per-slot' | 'shared';
  /** The server's process, for its resident memory; none when it runs in this process. */
  pid?: number;
  /** What had to be adapted to run it, printed under the table. */
  notes?: string[];
  close(): Promise<void>;
}

export interface GatewayTarget {
  name: string;
  /**
   * What it stands in front of: `rest`, the REST upstream (the default), or
   * `mcp`, the lean upstream MCP server; `start` is given that one's URL.
   */
  upstream?: 'rest' | 'mcp';
  /**
   * Throws when the configuration cannot run here; the runner skips it and says
   * why. `upstreamPid`: the upstream's process, for a target that is the upstream.
   */
  start(upstreamUrl: string, upstreamPid?: number): Promise<StartedTarget>;
}
