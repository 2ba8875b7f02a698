/**
 * Who may use a connection and what is switched on, on its page: its
 * actions turned on or off a whole class at a time (reads, writes,
 * destructive), and its grants (which agent, reads only, everything or
 * actions chosen from a checklist of the connection's own; with the
 * connection's shared credential or the agent's personal one), given and
 * revoked. Owners and operators change them.
 */
import { useState } from 'preact/hooks';
import { changeActions } from '../action-changes.ts';
import { api } from '../api.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import type { ActionView, Agent } from '../types.ts';
import { useChange } from '../use-change.ts';
import { useLoad } from '../use-load.ts';
import { ClassBadge } from './action-badges.tsx';
import { CLASSES } from './review-by-class.tsx';
import { RevokeButton } from './revoke-button.tsx';
import { SectionHeading, type Server } from './server-label.tsx';
import { TurnButton } from './turn-button.tsx';

interface GrantRow {
  id: string;
  agent?: string;
  member?: string;
  connection: string;
  scope: 'all' | 'reads' | 'actions';
  actions: string[];
  credentialMode: 'shared' | 'personal';
}

/** What each section of a connection's page (`review.tsx`) is given. */
export interface SectionProps {
  connection: string;
  /** The remote server the connection reaches, for its label; none for a native connection. */
  server?: Server | undefined;
  actions: ActionView[];
  canChange: boolean;
  onChanged: (done: string) => void;
}

export function ClassPolicies({ connection, server, actions, canChange, onChanged }: SectionProps) {
  const change = useChange(onChanged);
  const turn = (verb: 'enable' | 'disable', classification: string, label: string) =>
    change.run(
      () => changeActions(connection, verb, { classification }),
      `${label} of ${connection}: turned ${verb === 'enable' ? 'on' : 'off'}.`,
    );
  return (
    <section class="panel" aria-labelledby="policies">
      <SectionHeading id="policies" server={server}>
        Policies by class
      </SectionHeading>
      <Problem error={change.error} />
      <table class="cards">
        <thead>
          <tr>
            <th scope="col">Class</th>
            <th scope="col">On</th>
            <th scope="col">
              <span class="skip">Change</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {CLASSES.map(({ id, label }) => {
            const live = actions.filter((a) => a.classification === id && a.state !== 'retired');
            const on = live.filter((a) => a.state === 'enabled').length;
            return (
              <tr key={id} data-class={id}>
                <td data-label="Class">{label}</td>
                <td data-label="On">
                  {on} of {live.length}
                </td>
                <td data-label="">
                  <div class="actions tight">
                    {(['enable', 'disable'] as const).map((verb) => (
                      <TurnButton
                        key={verb}
                        verb={verb}
                        what={label}
                        disabled={!canChange || live.length === 0}
                        onTurn={() => turn(verb, id, label)}
                      />
                    ))}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p class="note">
        Turning a class on approves each action's current contract, as Approve does.
      </p>
    </section>
  );
}

type Scope = GrantRow['scope'];
const CREDENTIALS = [
  { mode: 'shared', text: "Shared: the connection's own credential" },
  { mode: 'personal', text: "Personal: the agent's own credential" },
] as const;
const SCOPE_WORDS: Record<Scope, string> = {
  reads: 'reads only',
  all: 'everything switched on',
  actions: 'chosen actions',
};

export function Grants({ connection, server, actions, canChange, onChanged }: SectionProps) {
  const grants = useLoad(() => api<GrantRow[]>('GET', '/grants'), `grants:${connection}`);
  const agents = useLoad(() => api<Agent[]>('GET', '/agents'), 'agents');
  const [agent, setAgent] = useState('');
  const [scope, setScope] = useState<Scope>('reads');
  const [chosen, setChosen] = useState<string[]>([]);
  const [credential, setCredential] = useState<GrantRow['credentialMode']>('shared');
  const changes = useChange(onChanged);
  const choosable = actions.filter((a) => a.state !== 'retired');
  // A grant names actions by their key (`count`); the page shows the names listed (`weather__count`).
  const listed = new Map(actions.map((a) => [a.action, a.name]));
  const toggle = (name: string, on: boolean) =>
    setChosen((now) => (on ? [...now, name] : now.filter((n) => n !== name)));
  const mine = (grants.data ?? []).filter((g) => g.connection === connection);
  const change = (body: Record<string, unknown>, path: string, done: string) =>
    changes.run(async () => {
      await api('POST', path, { connection, ...body });
      grants.reload();
    }, done);
  const give = (event: Event) => {
    event.preventDefault();
    const picked = scope === 'actions' ? choosable.filter((a) => chosen.includes(a.name)) : [];
    const what = scope === 'actions' ? picked.map((a) => a.name).join(', ') : SCOPE_WORDS[scope];
    change(
      { agent, scope, actions: picked.map((a) => a.name), credential },
      '/grants',
      `${agent} may use ${connection}: ${what}, with ${credential === 'personal' ? 'its personal' : 'the shared'} credential.`,
    );
  };
  return (
    <section class="panel" aria-labelledby="grants">
      <SectionHeading id="grants" server={server}>
        Grants
      </SectionHeading>
      <Problem error={grants.error ?? changes.error} />
      {grants.data && mine.length === 0 ? <p>No agent may use this connection yet.</p> : null}
      {mine.length > 0 ? (
        <table class="cards">
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col">Scope</th>
              <th scope="col">Credential</th>
              <th scope="col">
                <span class="skip">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {mine.map((g) => {
              const who = g.agent ?? g.member ?? '';
              const holder = g.agent !== undefined ? { agent: g.agent } : { member: g.member };
              return (
                <tr key={g.id} data-grant={who}>
                  <td data-label="Who">
                    {shown(who)}
                    {g.member !== undefined ? <span class="note"> (member)</span> : null}
                  </td>
                  <td data-label="Scope">
                    {g.scope === 'actions'
                      ? g.actions.map((a) => (
                          <code key={a} class="chip">
                            {shown(listed.get(a) ?? a)}
                          </code>
                        ))
                      : g.scope}
                  </td>
                  <td data-label="Credential">{g.credentialMode}</td>
                  <td data-label="">
                    <RevokeButton
                      what={`grant of ${who}`}
                      disabled={!canChange}
                      onRevoke={() =>
                        change(holder, '/grants/revoke', `${who} may no longer use ${connection}.`)
                      }
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {canChange ? (
        <form onSubmit={give} aria-label="Grant an agent">
          <div class="filters">
            <div>
              <label for="grant-agent">Agent</label>
              <select
                id="grant-agent"
                required
                value={agent}
                onChange={(e) => setAgent(e.currentTarget.value)}
              >
                <option value="">Choose an agent</option>
                {(agents.data ?? [])
                  .filter((a) => a.status === 'active')
                  .map((a) => (
                    <option key={a.id} value={a.name}>
                      {shown(a.name)}
                    </option>
                  ))}
              </select>
            </div>
            <div>
              <label for="grant-scope">Scope</label>
              <select
                id="grant-scope"
                value={scope}
                onChange={(e) => setScope(e.currentTarget.value as Scope)}
              >
                <option value="reads">Reads only</option>
                <option value="all">Everything switched on</option>
                <option value="actions">Chosen actions</option>
              </select>
            </div>
          </div>
          {scope === 'actions' ? (
            <fieldset class="checklist">
              <legend>Actions it may call</legend>
              {choosable.length === 0 ? <p class="note">This connection has no actions.</p> : null}
              {choosable.map((a) => (
                <label key={a.action} class="check">
                  <input
                    type="checkbox"
                    name="grant-action"
                    value={a.name}
                    checked={chosen.includes(a.name)}
                    onChange={(e) => toggle(a.name, e.currentTarget.checked)}
                  />
                  <span>
                    <code>{shown(a.name)}</code> <ClassBadge action={a} />
                    {a.state !== 'enabled' ? <span class="note"> (off)</span> : null}
                  </span>
                </label>
              ))}
            </fieldset>
          ) : null}
          <fieldset class="checklist">
            <legend>Credential</legend>
            {CREDENTIALS.map((c) => (
              <label key={c.mode} class="check">
                <input
                  type="radio"
                  name="grant-credential"
                  value={c.mode}
                  checked={credential === c.mode}
                  onChange={() => setCredential(c.mode)}
                />
                <span>{c.text}</span>
              </label>
            ))}
            {credential === 'personal' ? (
              <p class="note">
                The agent calls with a credential of its own: set it with{' '}
                <code>
                  portcullis credential set {shown(connection)} --agent{' '}
                  {agent ? shown(agent) : '<agent>'}
                </code>{' '}
                from the command line; for a server people sign in to, the person the agent acts for
                signs in when asked.
              </p>
            ) : null}
          </fieldset>
          <div class="actions">
            <button type="submit" class="primary">
              Grant
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
