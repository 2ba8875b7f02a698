/**
 * A connection's actions one by one, outside the review queue: each with its
 * class and state, turned on (which approves its current contract) or off
 * on its own, besides the whole-class switches. A retired action is shown,
 * never switched.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import type { ActionView } from '../types.ts';
import { type Server, ServerLabel } from './server-label.tsx';

interface Props {
  connection: string;
  /** The remote server the connection reaches, for its label; none for a native connection. */
  server?: Server | undefined;
  actions: ActionView[];
  canChange: boolean;
  onChanged: (done: string) => void;
}

export function ActionPolicies({ connection, server, actions, canChange, onChanged }: Props) {
  const [error, setError] = useState<unknown>();
  const path = `/connections/${encodeURIComponent(connection)}/actions`;
  const turn = async (action: ActionView, verb: 'enable' | 'disable') => {
    setError(undefined);
    try {
      await api('POST', `${path}/${verb}`, { actions: [action.name] });
      onChanged(`${action.name}: turned ${verb === 'enable' ? 'on' : 'off'}.`);
    } catch (problem) {
      setError(problem);
    }
  };
  if (actions.length === 0) return null;
  return (
    <section class="panel" aria-labelledby="per-action">
      <h2 id="per-action">
        Policies by action
        {server ? (
          <>
            {' '}
            <ServerLabel server={server} brief />
          </>
        ) : null}
      </h2>
      <Problem error={error} />
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
                <code>{shown(action.name)}</code>
              </td>
              <td data-label="Class">{action.classification}</td>
              <td data-label="State">
                <span class={`badge state-${action.state}`}>
                  {action.state === 'enabled'
                    ? 'on'
                    : action.state === 'disabled'
                      ? 'off'
                      : action.state}
                </span>
                {action.review === 'changed' ? ' (contract changed)' : ''}
              </td>
              <td data-label="">
                {action.state === 'retired' ? null : action.state === 'enabled' ? (
                  <button
                    type="button"
                    class="small"
                    disabled={!canChange}
                    onClick={() => turn(action, 'disable')}
                  >
                    Turn off <span class="skip">{shown(action.name)}</span>
                  </button>
                ) : (
                  <button
                    type="button"
                    class="small"
                    disabled={!canChange}
                    onClick={() => turn(action, 'enable')}
                  >
                    Turn on <span class="skip">{shown(action.name)}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="note">Turning an action on approves its current contract.</p>
    </section>
  );
}
