/**
 * The tools of a native REST connection: its provider's compiled catalog.
 * One source per provider, shared by every connection to it.
 */
import type { CatalogAction } from '../../../../generated/catalog-format.ts';
import type { CatalogSet, ProviderCatalog } from '../../catalog/catalog-set.ts';
import type { ToolSource, ToolSources, ToolTarget } from '../../governance/tool-source.ts';
import type { Connection } from '../../model/governance.ts';

export class CatalogToolSource implements ToolSource<CatalogAction> {
  readonly kind = 'native_rest';
  readonly provider: ProviderCatalog;

  constructor(provider: ProviderCatalog) {
    this.provider = provider;
  }

  get actions(): readonly CatalogAction[] {
    return this.provider.catalog.actions;
  }

  action(name: string): CatalogAction | undefined {
    return this.provider.actions.get(name);
  }

  validatorFor(action: CatalogAction) {
    return this.provider.validatorFor(action);
  }

  sendsCredential(action: CatalogAction): boolean {
    return action.request.credential;
  }
}

export type NativeRestTarget = ToolTarget<CatalogToolSource>;

export function catalogToolSources(catalogs: CatalogSet): ToolSources {
  const sources = new Map(catalogs.providers.map((p) => [p.id, new CatalogToolSource(p)]));
  return { of: (connection: Connection) => sources.get(connection.provider) };
}
