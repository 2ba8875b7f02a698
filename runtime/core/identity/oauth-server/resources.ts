/**
 * The resources tokens can be for: the gateway's `/mcp` endpoint and
 * `/mcp/c/<name>` for every name a connection could have. A `resource`
 * parameter that names anything else is refused (`invalid_target`, RFC 8707).
 *
 * Whether some workspace has a connection by that name is deliberately not
 * asked: what is answered before authentication (this metadata, a consent
 * page, a 401) is the same for a real name and a made-up one, so nobody can
 * probe which names exist. A token for a name its workspace has no
 * connection by serves nothing, as on any endpoint the agent has no grant on.
 */
import { CONNECTION_NAME_PATTERN } from '../../governance/tool-names.ts';
import { CONNECTION_MCP_PREFIX, MCP_PATH, resourceOf } from './metadata.ts';

export class Resources {
  readonly #issuer: string;

  constructor(issuer: string) {
    this.#issuer = issuer;
  }

  get default(): string {
    return resourceOf(this.#issuer, MCP_PATH);
  }

  /** The endpoint path a resource stands for, when it is one of ours. */
  pathOf(resource: string): string | undefined {
    if (resource === this.default) return MCP_PATH;
    const prefix = this.#issuer;
    return resource.startsWith(prefix) ? endpointPathOf(resource.slice(prefix.length)) : undefined;
  }
}

/** `/mcp`, or `/mcp/c/<name>` for a name a connection could have; undefined for any other path. */
export function endpointPathOf(path: string): string | undefined {
  if (path === MCP_PATH) return MCP_PATH;
  if (!path.startsWith(CONNECTION_MCP_PREFIX)) return undefined;
  return CONNECTION_NAME_PATTERN.test(path.slice(CONNECTION_MCP_PREFIX.length)) ? path : undefined;
}
