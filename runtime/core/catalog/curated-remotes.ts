/**
 * The curated remote MCP server definitions (`generated/<id>/manifest.json`
 * whose `connection.transport` is `remote_mcp`), and the one question the
 * connect flow asks of them: does a pasted URL belong to one? A match is a
 * branded shortcut offered beside the generic route: labels, sign-in hints,
 * defaults and support text for the same connection, never a second
 * connection or another way of executing. No catalog, no actions: the
 * server's tools are discovered and reviewed like any remote server's.
 *
 * Matching compares strings only, by the rule in `endpointPatternMatches`
 * (generated/catalog-rules.ts, the compiler's own): https, the exact host,
 * the path equal (`exact`) or continued after a `/` (`prefix`). A
 * definition's text never becomes a regular expression.
 */
import { readFile } from 'node:fs/promises';
import type { RemoteEndpoint, RemoteMcpManifest } from '../../../generated/catalog-format.ts';
import { endpointPatternMatches } from '../../../generated/catalog-rules.ts';
import { remotes } from '../../../generated/index.ts';

export interface CuratedRemoteFiles {
  readonly id: string;
  readonly manifest: URL;
}

/** A curated definition a pasted URL matched, and the endpoint pattern it matched. */
export interface CuratedRemoteMatch {
  readonly definition: RemoteMcpManifest['connection'];
  readonly endpoint: RemoteEndpoint;
}

/**
 * What the connect flow shows beside the generic route when a pasted URL is a
 * curated server's: its name, description, documentation, how it is signed
 * in to, its defaults and support text. Labels and hints only: the
 * connection is the one the generic route makes.
 */
export interface CuratedOffer {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly documentationUrl: string;
  /** The endpoint pattern the URL matched. */
  readonly endpoint: RemoteEndpoint;
  readonly auth: RemoteMcpManifest['connection']['auth'];
  readonly defaults: RemoteMcpManifest['connection']['defaults'];
  readonly support: RemoteMcpManifest['connection']['support'];
}

export function curatedOfferOf({ definition, endpoint }: CuratedRemoteMatch): CuratedOffer {
  const { id, name, description, documentationUrl, auth, defaults, support } = definition;
  return { id, name, description, documentationUrl, endpoint, auth, defaults, support };
}

/** The curated remote definitions' files under a `generated/` folder. */
export function generatedRemoteFiles(generatedDir: URL): CuratedRemoteFiles[] {
  return remotes.map(({ id }) => ({ id, manifest: new URL(`${id}/manifest.json`, generatedDir) }));
}

/**
 * The curated definition a pasted URL belongs to, or undefined. Surrounding
 * whitespace is ignored; a URL that does not parse, is not `https:`, carries
 * credentials, or whose host is not exactly a pattern's matches nothing (the
 * generic route then says what is wrong with it). When several patterns
 * match (the compiler refuses overlaps, so only hand-made lists), the longest
 * pattern wins, then the first definition.
 */
export function matchCuratedRemote(
  pastedUrl: string,
  definitions: readonly RemoteMcpManifest[],
): CuratedRemoteMatch | undefined {
  const url = pastedUrl.trim();
  let best: CuratedRemoteMatch | undefined;
  for (const { connection } of definitions) {
    if (connection.transport !== 'remote_mcp') continue;
    for (const endpoint of connection.endpoints) {
      if (!endpointPatternMatches(endpoint, url)) continue;
      if (!best || endpoint.url.length > best.endpoint.url.length)
        best = { definition: connection, endpoint };
    }
  }
  return best;
}

/** The loaded definitions, by id. */
export class CuratedRemotes {
  readonly #byId: ReadonlyMap<string, RemoteMcpManifest>;

  constructor(manifests: readonly RemoteMcpManifest[]) {
    const sorted = [...manifests].sort((a, b) =>
      a.connection.id < b.connection.id ? -1 : a.connection.id > b.connection.id ? 1 : 0,
    );
    this.#byId = new Map(sorted.map((m) => [m.connection.id, m]));
  }

  static async load(files: readonly CuratedRemoteFiles[]): Promise<CuratedRemotes> {
    const manifests = await Promise.all(
      files.map(
        async (file) => JSON.parse(await readFile(file.manifest, 'utf8')) as RemoteMcpManifest,
      ),
    );
    for (const [i, manifest] of manifests.entries()) {
      if (manifest.connection?.transport !== 'remote_mcp')
        throw new TypeError(`${files[i]!.manifest.href} is not a curated remote MCP manifest`);
    }
    return new CuratedRemotes(manifests);
  }

  /** Every definition, sorted by id. */
  get list(): RemoteMcpManifest[] {
    return [...this.#byId.values()];
  }

  get(id: string): RemoteMcpManifest | undefined {
    return this.#byId.get(id);
  }

  /** {@link matchCuratedRemote} over these definitions. */
  match(pastedUrl: string): CuratedRemoteMatch | undefined {
    return matchCuratedRemote(pastedUrl, this.list);
  }

  /** The shortcut to offer for a pasted URL, or undefined (an unverified server). */
  offer(pastedUrl: string): CuratedOffer | undefined {
    const match = this.match(pastedUrl);
    return match && curatedOfferOf(match);
  }
}
