/**
 * One upstream prompt, resource or resource template as Portcullis pins it:
 * what an agent reads of it in a list (a prompt's name, title, description
 * and arguments with theirs; a resource's uri, name, title, description and
 * mimeType; a template's alike), hashed with the catalog's canonical JSON as
 * a tool's contract is. The messages a `prompts/get` returns and the contents
 * a `resources/read` returns are data, not contract. Each is governed under
 * an action of its own (`prompt:<name>`, `resource:<uri>`,
 * `template:<uriTemplate>`: a tool name has no colon), so review, quarantine,
 * the stale-contract block and retirement are the tools' own.
 */
import { hashJson } from '../../../../generated/catalog-rules.ts';
import { isPlainObject } from '../../base/json-value.ts';
import type { GovernedAction } from '../../governance/tool-source.ts';
import { isAppUri } from '../../mcp/wire/apps.ts';
import type { Connection } from '../../model/governance.ts';
import type {
  PromptContract,
  RemoteFeature,
  RemoteFeatureContract,
  RemoteFeatureKind,
  ResourceContract,
  TemplateContract,
} from '../../model/remote.ts';

const TEXT_MAX = 16_384;
const ID_MAX = 2_048;
const ARGUMENTS_MAX = 100;

/** The contract of a list entry of that kind, or the reason it cannot be pinned. */
export function featureContractOf(
  kind: RemoteFeatureKind,
  value: unknown,
): RemoteFeatureContract | { problem: string } {
  if (!isPlainObject(value)) return { problem: `a ${kind} list entry is not an object` };
  const id = value[ID_FIELD[kind]];
  if (typeof id !== 'string' || id === '' || id.length > ID_MAX)
    return {
      problem: `a ${kind}'s ${ID_FIELD[kind]} ${JSON.stringify(String(id)).slice(0, 140)} is not one Portcullis can pin`,
    };
  const texts = textsOf(value);
  if (kind === 'prompt') {
    const contract: PromptContract = { name: id, ...texts };
    if (Array.isArray(value.arguments)) {
      const args = value.arguments.slice(0, ARGUMENTS_MAX).flatMap((arg) => {
        if (!isPlainObject(arg) || typeof arg.name !== 'string') return [];
        return [
          {
            name: arg.name.slice(0, TEXT_MAX),
            ...textsOf(arg),
            ...(typeof arg.required === 'boolean' ? { required: arg.required } : {}),
          },
        ];
      });
      if (args.length > 0) contract.arguments = args;
    }
    return { kind, contract };
  }
  if (typeof value.name !== 'string') return { problem: `${kind} ${id.slice(0, 140)} has no name` };
  const listed = {
    name: value.name.slice(0, TEXT_MAX),
    ...texts,
    ...(typeof value.mimeType === 'string' ? { mimeType: value.mimeType.slice(0, 256) } : {}),
  };
  return kind === 'resource'
    ? { kind, contract: { uri: id, ...listed } satisfies ResourceContract }
    : { kind, contract: { uriTemplate: id, ...listed } satisfies TemplateContract };
}

/** The field that names an item of each kind. */
const ID_FIELD = { prompt: 'name', resource: 'uri', template: 'uriTemplate' } as const;

function textsOf(value: Record<string, unknown>): { title?: string; description?: string } {
  return {
    ...(typeof value.title === 'string' ? { title: value.title.slice(0, TEXT_MAX) } : {}),
    ...(typeof value.description === 'string'
      ? { description: value.description.slice(0, TEXT_MAX) }
      : {}),
  };
}

/** The server's name for it: a prompt's name, a resource's uri, a template's uriTemplate. */
export function featureIdOf(feature: RemoteFeatureContract): string {
  switch (feature.kind) {
    case 'prompt':
      return feature.contract.name;
    case 'resource':
      return feature.contract.uri;
    case 'template':
      return feature.contract.uriTemplate;
  }
}

/** The action its policy is kept under. */
export function featureKey(kind: RemoteFeatureKind, id: string): string {
  return `${kind}:${id}`;
}

/** The kind and server's name an action key stands for; undefined for a tool's name. */
export function featureOfKey(key: string): { kind: RemoteFeatureKind; id: string } | undefined {
  const at = key.indexOf(':');
  const kind = key.slice(0, at);
  if (at <= 0 || !(kind in ID_FIELD)) return undefined;
  return { kind: kind as RemoteFeatureKind, id: key.slice(at + 1) };
}

export function featureHashOf(feature: RemoteFeatureContract): string {
  return hashJson({ kind: feature.kind, contract: feature.contract });
}

/** As a governed action: always a read (an agent only reads it), never a tool. */
export function featureActionOf(feature: RemoteFeature): GovernedAction {
  const title = feature.contract.title ?? feature.contract.name;
  return {
    name: feature.key,
    title,
    description: feature.contract.description ?? '',
    classification: 'read',
    annotations: {
      title,
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
    inputSchema: { type: 'object' },
    contractHash: feature.contractHash,
  };
}

/**
 * Its name on `/mcp`, namespaced by its connection: a prompt
 * `<connection>__<name>`, a resource or template `<connection>+<uri>`, an
 * MCP App's page `ui://<connection>/<the rest of its uri>` (hosts take only
 * `ui://` pages; a connection's name has no `/`, so no two connections'
 * names meet, and `appUriOn` reads it back).
 */
export function namespacedId(
  connection: Pick<Connection, 'name'>,
  kind: RemoteFeatureKind,
  id: string,
): string {
  if (kind === 'prompt') return `${connection.name}__${id}`;
  if (kind === 'resource' && isAppUri(id))
    return `${APP_SCHEME}${connection.name}/${id.slice(APP_SCHEME.length)}`;
  return `${connection.name}+${id}`;
}

const APP_SCHEME = 'ui://';

/** The connection and server's uri an app page's name on `/mcp` stands for. */
export function appUriOn(shown: string): [string | undefined, string] {
  const rest = shown.slice(APP_SCHEME.length);
  const at = rest.indexOf('/');
  if (!isAppUri(shown) || at <= 0) return [undefined, shown];
  return [rest.slice(0, at), `${APP_SCHEME}${rest.slice(at + 1)}`];
}

/** What an agent is shown of it: its pinned contract, named as the agent's view names it. */
export function listedFeature(feature: RemoteFeatureContract, shownId: string): object {
  if (feature.kind === 'resource' && feature.contract.app) {
    const { app: _pinned, ...listed } = feature.contract;
    return { ...listed, uri: shownId };
  }
  return { ...feature.contract, [ID_FIELD[feature.kind]]: shownId };
}
