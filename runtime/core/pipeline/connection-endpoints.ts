/**
 * The endpoints of `/mcp/c/<name>`, one per name, made on first use. Every
 * name a connection could have is served, whether or not some workspace has
 * a connection by it, and by an endpoint made the same way: a request without
 * a credential gets the same answer (401, its challenge naming that path's
 * metadata) for a real name and a made-up one, and an agent sees only its own
 * workspace's connection there, none for a name that is another workspace's
 * or nobody's.
 *
 * What differs is only how long one is kept: while the governance has a
 * connection by that name (at most `maxNamed`), else in a small cache that
 * ends its oldest when full, so a stream of made-up names costs a bounded
 * amount of memory and never ends a real connection's sessions.
 */
import type { McpEndpoint } from '../mcp/server/mcp-endpoint.ts';

export interface ConnectionEndpointsOptions {
  /** A new endpoint for `/mcp/c/<name>`. */
  make(name: string): McpEndpoint;
  /** Whether some workspace has a connection by this name now. */
  isConnection(name: string): Promise<boolean>;
  /** Endpoints of real names kept at most (past it, those too go in the small cache). Default 10,000. */
  maxNamed?: number;
  /** Endpoints of other names kept at most; one more ends the oldest. Default 100. */
  maxOthers?: number;
}

export class ConnectionEndpoints {
  readonly #options: ConnectionEndpointsOptions;
  readonly #named = new Map<string, McpEndpoint>();
  readonly #others = new Map<string, McpEndpoint>();
  readonly #maxNamed: number;
  readonly #maxOthers: number;

  constructor(options: ConnectionEndpointsOptions) {
    this.#options = options;
    this.#maxNamed = options.maxNamed ?? 10_000;
    this.#maxOthers = options.maxOthers ?? 100;
  }

  async of(name: string): Promise<McpEndpoint> {
    const named = this.#named.get(name);
    if (named) return named;
    const other = this.#others.get(name);
    if (this.#named.size < this.#maxNamed && (await this.#options.isConnection(name))) {
      // A name that became a connection keeps the endpoint (and sessions) it had.
      const endpoint = other ?? this.#options.make(name);
      this.#others.delete(name);
      this.#named.set(name, endpoint);
      return endpoint;
    }
    if (other) return other;
    if (this.#others.size >= this.#maxOthers) {
      const [oldest, endpoint] = this.#others.entries().next().value as [string, McpEndpoint];
      this.#others.delete(oldest);
      endpoint.close();
    }
    const endpoint = this.#options.make(name);
    this.#others.set(name, endpoint);
    return endpoint;
  }

  /** The live MCP sessions of every endpoint kept (what `/metrics` counts with `/mcp`'s). */
  get sessionCount(): number {
    let count = 0;
    for (const endpoint of this.#named.values()) count += endpoint.sessionCount;
    for (const endpoint of this.#others.values()) count += endpoint.sessionCount;
    return count;
  }

  close(): void {
    for (const endpoint of [...this.#named.values(), ...this.#others.values()]) endpoint.close();
    this.#named.clear();
    this.#others.clear();
  }
}
