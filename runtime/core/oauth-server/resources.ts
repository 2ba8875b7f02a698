/**
 * The resources tokens can be for: the gateway's `/mcp` endpoint and, for
 * each connection, `/mcp/c/<connection>`. A `resource` parameter that names
 * anything else is refused (`invalid_target`, RFC 8707).
 */
import { CONNECTION_NAME_PATTERN } from '../governance/tool-names.ts';
import type { Store } from '../store/store.ts';
import { CONNECTION_MCP_PREFIX, MCP_PATH, resourceOf } from './metadata.ts';

export class Resources {
  readonly #issuer: string;
  readonly #store: Store;

  constructor(issuer: string, store: Store) {
    this.#issuer = issuer;
    this.#store = store;
  }

  get default(): string {
    return resourceOf(this.#issuer, MCP_PATH);
  }

  /** The endpoint path a resource stands for, when it is one of ours. */
  async pathOf(resource: string): Promise<string | undefined> {
    if (resource === this.default) return MCP_PATH;
    const prefix = resourceOf(this.#issuer, CONNECTION_MCP_PREFIX);
    if (!resource.startsWith(prefix)) return undefined;
    const name = resource.slice(prefix.length);
    return (await this.hasConnection(name)) ? `${CONNECTION_MCP_PREFIX}${name}` : undefined;
  }

  /** Whether some workspace has a connection by this name (so `/mcp/c/<name>` exists). */
  async hasConnection(name: string): Promise<boolean> {
    if (!CONNECTION_NAME_PATTERN.test(name)) return false;
    return (await this.#store.connections.all()).some((connection) => connection.name === name);
  }
}
