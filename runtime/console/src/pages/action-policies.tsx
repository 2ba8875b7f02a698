/**
 * A connection's actions one by one, outside the review queue: each with its
 * class and state, turned on (which approves its current contract) or off
 * on its own, besides the whole-class switches. A retired action is shown,
 * never switched.
 */
import { changeActions } from '../action-changes.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import type { ActionView } from '../types.ts';
import { useChange } from '../use-change.ts';
import { ClassBadge, FeatureKind } from './action-badges.tsx';
import type { SectionProps } from './connection-access.tsx';
import { SectionHeading } from './server-label.tsx';
import { TurnButton } from './turn-button.tsx';

export function ActionPolicies({
  connection,
  server,
  actions,
  canChange,
  onChanged,
}: SectionProps) {
  const change = useChange(onChanged);
  const turn = (action: ActionView, verb: 'enable' | 'ask' | 'disable') =>
    change.run(
      () => changeActions(connection, verb, { actions: [action.name] }),
      verb === 'ask'
        ? `${action.name}: each call is held until an owner or operator approves it.`
        : `${action.name}: turned ${verb === 'enable' ? 'on' : 'off'}.`,
    );
  if (actions.length === 0) return null;
  return (
    <section class="panel" aria-labelledby="per-action">
      <SectionHeading id="per-action" server={server}>
        Policies by action
      </SectionHeading>
      <Problem error={change.error} />
      <table class="cards">
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Class</th>
            <th scope="col">State</th>
            <th scope="col">
              <span class="skip">Change</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {actions.map((action) => (
            <tr key={action.action} data-action={action.name}>
              <td data-label="Action">
                <code>{shown(action.name)}</code> <FeatureKind action={action} />
              </td>
              <td data-label="Class">
                <ClassBadge action={action} />
              </td>
              <td data-label="State">
                <span class={`badge state-${action.state}`}>
                  {action.state === 'enabled'
                    ? 'on'
                    : action.state === 'disabled'
                      ? 'off'
                      : action.state === 'ask'
                        ? 'ask first'
                        : action.state}
                </span>
                {action.review === 'changed' ? ' (contract changed)' : ''}
              </td>
              <td data-label="">
                {action.state === 'retired' ? null : (
                  <TurnButton
                    verb={action.state === 'enabled' ? 'disable' : 'enable'}
                    what={action.name}
                    disabled={!canChange}
                    onTurn={() => turn(action, action.state === 'enabled' ? 'disable' : 'enable')}
                  />
                )}
                {action.state === 'retired' || action.state === 'ask' ? null : (
                  <>
                    {' '}
                    <TurnButton
                      verb="ask"
                      what={action.name}
                      disabled={!canChange}
                      onTurn={() => turn(action, 'ask')}
                    />
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="note">
        Turning an action on approves its current contract. Ask first: each call waits until an
        owner or operator approves it on the Approvals page.
      </p>
    </section>
  );
}
