/**
 * Every page of an upstream's `prompts/list`, `resources/list` and
 * `resources/templates/list`, as pinnable contracts, for the kinds its
 * capabilities say it serves. Items the server describes badly are left out
 * and named; a list that cannot be read is named too, and the caller keeps
 * what was pinned of that kind (a failed list retires nothing). An MCP App's
 * page (a `ui://` resource) is read too, and pinned with its resource
 * (app-contract.ts); one that cannot be read keeps the resources as pinned.
 */
import { reasonOf } from '../../base/errors.ts';
import { listPages, PAGES_MAX } from '../../mcp/client/list-pages.ts';
import type {
  ExchangeOptions,
  UpstreamClient,
  UpstreamSession,
} from '../../mcp/client/upstream-client.ts';
import type { UpstreamTarget } from '../../mcp/client/upstream-target.ts';
import { isAppUri } from '../../mcp/wire/apps.ts';
import type { RemoteFeatureContract, RemoteFeatureKind } from '../../model/remote.ts';
import { appContractOf } from './app-contract.ts';
import { featureContractOf, featureIdOf } from './remote-feature-contract.ts';

export const FEATURES_MAX = 2_000;

/** Each kind: the capability that says a server serves it, its list method and member. */
export const FEATURE_LISTS = [
  { kind: 'prompt', capability: 'prompts', method: 'prompts/list', member: 'prompts' },
  { kind: 'resource', capability: 'resources', method: 'resources/list', member: 'resources' },
  {
    kind: 'template',
    capability: 'resources',
    method: 'resources/templates/list',
    member: 'resourceTemplates',
  },
] as const satisfies ReadonlyArray<{
  kind: RemoteFeatureKind;
  capability: string;
  method: string;
  member: string;
}>;

export interface DiscoveredFeatures {
  features: RemoteFeatureContract[];
  /** Items left out, and lists that could not be read, each with why. */
  problems: string[];
  /** The kinds whose list could not be read: what was pinned of them stays. */
  unread: RemoteFeatureKind[];
}

export async function discoverFeatures(
  client: UpstreamClient,
  target: UpstreamTarget,
  session: UpstreamSession,
  options: ExchangeOptions = {},
): Promise<DiscoveredFeatures> {
  const found: DiscoveredFeatures = { features: [], problems: [], unread: [] };
  /** The list entries of the apps' pages, read once the lists are. */
  const apps = new Map<string, unknown>();
  const capabilities = await capabilitiesOf(client, target, session, options);
  if (capabilities === undefined) {
    found.unread.push(...FEATURE_LISTS.map((list) => list.kind));
    found.problems.push('the server did not say what it serves; its prompts and resources stay');
    return found;
  }
  for (const list of FEATURE_LISTS) {
    if (capabilities[list.capability] === undefined) continue;
    const seen = new Set<string>();
    const kept: RemoteFeatureContract[] = [];
    try {
      const pages = listPages(client, target, session, list.method, list.member, options);
      let next = await pages.next();
      let full = false;
      while (!next.done && !full) {
        for (const entry of next.value.entries) {
          const feature = featureContractOf(list.kind, entry);
          if ('problem' in feature) {
            found.problems.push(feature.problem);
            continue;
          }
          const id = featureIdOf(feature);
          if (seen.has(id)) {
            found.problems.push(`${list.kind} ${id} is listed twice; the first is kept`);
            continue;
          }
          if (kept.length >= FEATURES_MAX) {
            found.problems.push(`more than ${FEATURES_MAX} ${list.member}; the rest are left out`);
            full = true;
            break;
          }
          seen.add(id);
          kept.push(feature);
          if (feature.kind === 'resource' && isAppUri(id)) apps.set(id, entry);
        }
        if (!full) next = await pages.next();
      }
      if (next.done && !next.value)
        found.problems.push(
          `more than ${PAGES_MAX} pages of ${list.member}; the rest are left out`,
        );
    } catch (error) {
      found.unread.push(list.kind);
      found.problems.push(`${list.method} failed (${reasonOf(error)}); its pins stay as they were`);
      continue;
    }
    found.features.push(...kept);
  }
  if (apps.size > 0 && !found.unread.includes('resource'))
    await readApps(client, target, session, options, found, apps);
  return found;
}

/** Each app's page read and pinned with its resource; one that cannot be keeps the resources' pins. */
async function readApps(
  client: UpstreamClient,
  target: UpstreamTarget,
  session: UpstreamSession,
  options: ExchangeOptions,
  found: DiscoveredFeatures,
  apps: ReadonlyMap<string, unknown>,
): Promise<void> {
  for (const feature of found.features) {
    if (feature.kind !== 'resource' || !apps.has(feature.contract.uri)) continue;
    const { uri } = feature.contract;
    let why: string;
    try {
      const { result } = await client.request(target, session, 'resources/read', { uri }, options);
      const app = appContractOf(result, apps.get(uri));
      if (!('problem' in app)) {
        feature.contract.app = app;
        continue;
      }
      why = app.problem;
    } catch (error) {
      why = reasonOf(error);
    }
    found.unread.push('resource');
    found.features = found.features.filter((f) => f.kind !== 'resource');
    found.problems.push(
      `the app ${uri.slice(0, 200)} could not be pinned (${why}); the resources' pins stay as they were`,
    );
    return;
  }
}

/** What the session's opening said the server serves; a 2026-07-28 server is asked. */
async function capabilitiesOf(
  client: UpstreamClient,
  target: UpstreamTarget,
  session: UpstreamSession,
  options: ExchangeOptions,
): Promise<Record<string, unknown> | undefined> {
  if (session.capabilities !== undefined) return session.capabilities;
  if (session.era !== 'modern') return {};
  const hello = await client.discover(target, options).catch(() => undefined);
  return hello?.capabilities;
}
