/**
 * Development only: where a provider's calls go instead of its published hosts
 * (Prism, a local upstream), from `PORTCULLIS_DEV_UPSTREAMS`. The executor
 * applies it after the host checks, so the checked host stays the real one.
 */
import type { CatalogAction } from '../../../../generated/catalog-format.ts';
import type { UpstreamOverride } from './native-rest-executor.ts';

/**
 * `provider[/document]=url`: the url stands in for the action's server URL
 * (the document-specific entry wins). The server URL's own path segments are
 * dropped, since a mock such as Prism serves the operations' paths at its root.
 */
export function upstreamOverride(origins: Record<string, string>): UpstreamOverride | undefined {
  if (Object.keys(origins).length === 0) return undefined;
  // Each replacement as the text its operation paths are appended to.
  const replacements = new Map(
    Object.entries(origins).map(([key, text]) => {
      const url = new URL(text);
      return [key, `${url.origin}${url.pathname.replace(/\/$/, '')}`];
    }),
  );
  const baseSegments = new WeakMap<CatalogAction, number>();
  return (provider, action, url) => {
    const replacement =
      replacements.get(`${provider}/${action.document}`) ?? replacements.get(provider);
    if (replacement === undefined) return undefined;
    let drop = baseSegments.get(action);
    if (drop === undefined) {
      drop = new URL(action.request.server.url.replace(/[{}]/g, '')).pathname
        .split('/')
        .filter(Boolean).length;
      baseSegments.set(action, drop);
    }
    const operationPath = url.pathname.split('/').filter(Boolean).slice(drop).join('/');
    return new URL(`${replacement}/${operationPath}${url.search}`);
  };
}
