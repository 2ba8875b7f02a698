/**
 * The compiled catalogs the gateway serves, loaded once at start from
 * `generated/`. The runtime never parses OpenAPI: it reads the compiler's JSON.
 * Argument validators are compiled lazily, one Ajv instance per catalog, so
 * memory grows with the actions actually called, not with the catalog size.
 */
import { readFile } from 'node:fs/promises';
import type { ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type {
  Catalog,
  CatalogAction,
  ConnectionManifest,
} from '../../../generated/catalog-format.ts';
import { providers } from '../../../generated/index.ts';
import { createAjv } from '../base/create-ajv.ts';
import { GatewayError } from '../base/errors.ts';
import { didYouMean } from '../base/nearest-word.ts';
import { type CuratedRemoteFiles, CuratedRemotes } from './curated-remotes.ts';

export interface ProviderCatalog {
  readonly id: string;
  readonly catalog: Catalog;
  readonly manifest: ConnectionManifest;
  readonly actions: ReadonlyMap<string, CatalogAction>;
  /** The compiled input-schema validator for an action (compiled on first use). */
  validatorFor(action: CatalogAction): ValidateFunction;
  /** The compiled validator of the manifest's connection settings (compiled on first use). */
  settingsValidator(): ValidateFunction;
}

export interface ProviderFiles {
  readonly id: string;
  readonly catalog: URL;
  readonly manifest: URL;
}

/** The compiled providers' files under a `generated/` folder. */
export function generatedProviderFiles(generatedDir: URL): ProviderFiles[] {
  return providers.map(({ id }) => ({
    id,
    catalog: new URL(`${id}/catalog.json`, generatedDir),
    manifest: new URL(`${id}/manifest.json`, generatedDir),
  }));
}

export class CatalogSet {
  readonly #providers: ReadonlyMap<string, ProviderCatalog>;
  /**
   * The curated remote MCP server definitions: not providers (no catalog, no
   * actions), so `providers`, `get` and `getOrThrow` never return one.
   */
  readonly remotes: CuratedRemotes;

  constructor(providers: readonly ProviderCatalog[], remotes = new CuratedRemotes([])) {
    this.#providers = new Map(providers.map((p) => [p.id, p]));
    this.remotes = remotes;
  }

  static async load(
    files: readonly ProviderFiles[],
    remoteFiles: readonly CuratedRemoteFiles[] = [],
  ): Promise<CatalogSet> {
    const remotes = CuratedRemotes.load(remoteFiles);
    const loaded = await Promise.all(
      files.map(async (file) => {
        const [catalog, manifest] = await Promise.all([
          readJson<Catalog>(file.catalog),
          readJson<ConnectionManifest>(file.manifest),
        ]);
        return providerCatalog(catalog, manifest);
      }),
    );
    return new CatalogSet(loaded, await remotes);
  }

  get providers(): ProviderCatalog[] {
    return [...this.#providers.values()];
  }

  get(id: string): ProviderCatalog | undefined {
    return this.#providers.get(id);
  }

  getOrThrow(id: string): ProviderCatalog {
    const provider = this.#providers.get(id);
    if (!provider) {
      const known = [...this.#providers.keys()];
      const remote = this.remotes.get(id)?.connection;
      if (remote) {
        throw new GatewayError(
          'not_found',
          `${id} is a curated remote MCP server (${remote.name}), not a native provider: connect it by its URL (${remote.endpoints[0]!.url})`,
          { field: 'provider', detail: { known, remote: id } },
        );
      }
      throw new GatewayError(
        'not_found',
        `no provider ${id} in the catalogs${didYouMean(id, known)}`,
        {
          field: 'provider',
          detail: { known },
        },
      );
    }
    return provider;
  }
}

function providerCatalog(catalog: Catalog, manifest: ConnectionManifest): ProviderCatalog {
  const actions = new Map(catalog.actions.map((action) => [action.name, action]));
  const validators = new Map<string, ValidateFunction>();
  let ajv: Ajv2020 | undefined;
  let settings: ValidateFunction | undefined;
  return {
    id: catalog.provider.id,
    catalog,
    manifest,
    actions,
    validatorFor(action) {
      let validate = validators.get(action.name);
      if (!validate) {
        ajv ??= createAjv(catalog.annotationFormats);
        validate = ajv.compile(action.inputSchema);
        validators.set(action.name, validate);
      }
      return validate;
    },
    settingsValidator() {
      ajv ??= createAjv(catalog.annotationFormats);
      settings ??= ajv.compile(manifest.connection.settingsSchema);
      return settings;
    },
  };
}

async function readJson<T>(url: URL): Promise<T> {
  return JSON.parse(await readFile(url, 'utf8')) as T;
}
