/**
 * The names of a connection's actions, one rule for the listing and for every
 * command that takes one (`enable`, `disable`, `review`, `grant --action`,
 * `classify`). A tool is listed as agents see it on `/mcp`
 * (`everything__echo`) and is also taken by the server's own name (`echo`);
 * a prompt, resource or template is listed and taken as its key
 * (`prompt:greet`, `resource:memo://welcome`), and also by its `/mcp` name.
 * Whatever a listing prints, a command takes.
 */
import { GatewayError } from '../base/errors.ts';
import { didYouMean } from '../base/nearest-word.ts';
import { toolNameFor } from '../governance/tool-names.ts';
import type { Connection } from '../model/governance.ts';
import { REMOTE_MCP_PROVIDER } from '../model/remote.ts';
import { featureOfKey, namespacedId } from '../sources/remote-mcp/remote-feature-contract.ts';

type Named = Pick<Connection, 'name' | 'provider'>;

export interface ActionNames {
  /** What a listing prints. */
  listed: string;
  /** What an agent sees on `/mcp`. */
  onMcp: string;
  /** Every name a command takes for it, the stored action first. */
  accepted: readonly string[];
}

export function actionNamesOf(connection: Named, action: string): ActionNames {
  const feature = connection.provider === REMOTE_MCP_PROVIDER ? featureOfKey(action) : undefined;
  const onMcp = feature
    ? namespacedId(connection, feature.kind, feature.id)
    : toolNameFor(connection, action);
  return {
    listed: feature ? action : onMcp,
    onMcp,
    accepted: [...new Set([action, onMcp])],
  };
}

/**
 * The stored action a name stands for, among `actions` (the stored names):
 * an exact stored name first, then any other accepted name. Unknown, a
 * `not_found` naming `field` with the nearest listed name.
 */
export function actionOrThrow(
  connection: Named,
  actions: readonly string[],
  given: string,
  field: string,
): string {
  if (actions.includes(given)) return given;
  const named = actions.map((action) => ({ action, names: actionNamesOf(connection, action) }));
  const found = named.find(({ names }) => names.accepted.includes(given));
  if (found) return found.action;
  throw new GatewayError(
    'not_found',
    `connection ${connection.name} has no action ${given}${didYouMean(
      given,
      named.map(({ names }) => names.listed),
    )}`,
    { field },
  );
}
