/**
 * Changes to a connection's actions, as the review page and its access
 * sections make them: approve (`review`), turn on (`enable`) or off
 * (`disable`) the actions named, a whole class of them, or all of them;
 * `force` approves flagged ones where the deployment holds them.
 */
import { api } from './api.ts';

export type ActionVerb = 'review' | 'enable' | 'ask' | 'disable';

export function changeActions(
  connection: string,
  verb: ActionVerb,
  which: ({ actions: string[] } | { classification: string } | { all: true }) & { force?: true },
): Promise<unknown> {
  return api('POST', `/connections/${encodeURIComponent(connection)}/actions/${verb}`, which);
}
