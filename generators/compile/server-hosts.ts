/**
 * The hosts a catalog's server templates can call, for its allowlist: each
 * URL's host with every host variable expanded over its enum (by the one rule
 * the runtime checks with, `serverHost`), and the settings that supply
 * operator-chosen hosts. A variable that starts or sits in the path
 * (`serverVariablePlaces`) does not change the host; a host variable with
 * neither an enum nor an operator's setting gives no host at all.
 */
import type { Catalog, ServerTemplate } from '../catalog/format.ts';
import { serverHost, serverVariablePlaces } from '../catalog/rules.ts';
import { byCodeUnit } from '../code-unit-order.ts';

export function serverHosts(servers: readonly ServerTemplate[]): Catalog['hosts'] {
  const fixed = new Set<string>();
  const settings = new Set<string>();
  for (const server of servers) {
    const places = Object.entries(serverVariablePlaces(server));
    // The host is what comes before the first variable that starts the path or sits in it.
    let expanded = [server.url];
    for (const [name, place] of places) {
      const variable = server.variables[name];
      if (place !== 'host') {
        expanded = expanded.map((url) => url.replaceAll(`{${name}}`, place === 'path' ? 'x' : ''));
        continue;
      }
      if (variable?.operatorOnly && variable.setting) {
        settings.add(variable.setting);
        expanded = [];
        break;
      }
      const values = variable?.enum ?? [];
      expanded = expanded.flatMap((url) => values.map((v) => url.replaceAll(`{${name}}`, v)));
    }
    for (const url of expanded) {
      const host = serverHost(url);
      if (host !== undefined) fixed.add(host);
    }
  }
  return { fixed: [...fixed].sort(byCodeUnit), settings: [...settings].sort(byCodeUnit) };
}
