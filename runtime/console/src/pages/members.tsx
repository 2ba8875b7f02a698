/**
 * The workspace's members and their roles. Every console role sees them;
 * owners alone add one (name, password, role), give one another role or
 * remove one (after a second click: removing ends everything the member
 * approved). The server decides each change, and keeps the last owner.
 */
import { useState } from 'preact/hooks';
import { api, type Session } from '../api.ts';
import { Notice } from '../notice.tsx';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { useChange } from '../use-change.ts';
import { useLoad } from '../use-load.ts';
import { RemoveButton } from './remove-button.tsx';

type Role = Session['member']['role'];
const ROLES: Array<{ id: Role; text: string }> = [
  { id: 'owner', text: 'Owner: changes everything, members too' },
  { id: 'operator', text: 'Operator: changes connections, reviews, agents, grants' },
  { id: 'viewer', text: 'Viewer: sees everything but secrets' },
  { id: 'member', text: 'Member: approves apps on the consent page only' },
];

/** Where a role or grant came from: `operator`, or `idp:<provider>:<group>`. */
interface Origin {
  what: 'role' | 'grant';
  name: string;
  from: string;
}

/** "eng at acme" for `idp:acme:eng`; undefined for an operator's. */
function groupOf(from: string): string | undefined {
  if (!from.startsWith('idp:')) return undefined;
  const rest = from.slice('idp:'.length);
  const at = rest.indexOf(':');
  return `${rest.slice(at + 1)} at ${rest.slice(0, at)}`;
}

interface MemberRow {
  id: string;
  name: string;
  role: Role;
  createdAt: string;
}

export function MembersPage({ isOwner, me }: { isOwner: boolean; me: string }) {
  const { data, error, reload } = useLoad(() => api<MemberRow[]>('GET', '/members'), 'members');
  const origins = useLoad(
    () => api<Record<string, Origin[]>>('GET', '/members/origins'),
    'members-origins',
  );
  const change = useChange(() => reload());
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const run = (path: string, body: unknown, text: string, reloadPage = false) =>
    change.run(async () => {
      await api('POST', path, body);
      if (reloadPage) window.location.reload();
    }, text);
  const add = async (event: Event) => {
    event.preventDefault();
    if (await run('/members', { name, password, role }, `Added ${name} as ${role}.`)) {
      setName('');
      setPassword('');
    }
  };
  return (
    <>
      <h1>Members</h1>
      <Problem error={error ?? change.error} />
      <Notice text={change.done} />
      {!isOwner ? <p class="note">Only owners add, change or remove members.</p> : null}
      {data ? (
        <table class="cards">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Since</th>
              {isOwner ? (
                <th scope="col">
                  <span class="skip">Change</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {data.map((member) => (
              <MemberLine
                key={member.id}
                member={member}
                isOwner={isOwner}
                isMe={member.name === me}
                origins={origins.data?.[member.name] ?? []}
                run={run}
              />
            ))}
          </tbody>
        </table>
      ) : null}
      {isOwner ? (
        <form class="panel" onSubmit={add} aria-labelledby="new-member">
          <h2 id="new-member">Add a member</h2>
          <div class="filters">
            <div>
              <label for="member-name">Member name</label>
              <input
                id="member-name"
                required
                autocomplete="off"
                value={name}
                onInput={(e) => setName(e.currentTarget.value)}
              />
            </div>
            <div>
              <label for="member-password">Password</label>
              <input
                id="member-password"
                type="password"
                required
                autocomplete="new-password"
                aria-describedby="member-password-hint"
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            </div>
            <div>
              <label for="member-role">Role</label>
              <select
                id="member-role"
                value={role}
                onChange={(e) => setRole(e.currentTarget.value as Role)}
              >
                {ROLES.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.id}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <p class="note" id="member-password-hint">
            A long passphrase; they sign in with it here and on the consent page. It is stored
            hashed and never shown again.
          </p>
          <ul class="note roles">
            {ROLES.map((r) => (
              <li key={r.id}>{r.text}</li>
            ))}
          </ul>
          <div class="actions">
            <button type="submit" class="primary">
              Add member
            </button>
          </div>
        </form>
      ) : null}
    </>
  );
}

function MemberLine({
  member,
  isOwner,
  isMe,
  origins,
  run,
}: {
  member: MemberRow;
  isOwner: boolean;
  isMe: boolean;
  /** Where the role and the grants came from, when a group gave any. */
  origins: Origin[];
  run: (path: string, body: unknown, text: string, reloadPage?: boolean) => Promise<boolean>;
}) {
  const [role, setRole] = useState<Role>(member.role);
  const path = `/members/${encodeURIComponent(member.name)}`;
  const id = `role-${member.id}`;
  return (
    <tr data-member={member.name}>
      <td data-label="Member">
        {shown(member.name)}
        {isMe ? <span class="note"> (you)</span> : null}
        {origins
          .filter((origin) => origin.what === 'grant' && groupOf(origin.from))
          .map((origin) => (
            <span class="note origin" key={origin.name}>
              Granted {shown(origin.name)} by the group {shown(groupOf(origin.from) ?? '')}
            </span>
          ))}
      </td>
      <td data-label="Role">
        <span class={`badge role-${member.role}`}>{member.role}</span>
        {origins
          .filter((origin) => origin.what === 'role' && groupOf(origin.from))
          .map((origin) => (
            <span class="note origin" key="role">
              from the group {shown(groupOf(origin.from) ?? '')}
            </span>
          ))}
      </td>
      <td data-label="Since">{new Date(member.createdAt).toLocaleDateString()}</td>
      {isOwner ? (
        <td data-label="">
          <div class="row-change">
            <label class="skip" for={id}>
              New role of {shown(member.name)}
            </label>
            <select id={id} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              {ROLES.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.id}
                </option>
              ))}
            </select>
            <button
              type="button"
              class="small"
              disabled={role === member.role}
              onClick={async () => {
                const changed = await run(
                  `${path}/role`,
                  { role },
                  `${member.name} is now ${role === 'operator' ? 'an' : 'a'} ${role}.`,
                  isMe,
                );
                // Refused: the choice goes back to the role the member still has.
                if (!changed) setRole(member.role);
              }}
            >
              Change role <span class="skip">of {shown(member.name)}</span>
            </button>
            <RemoveButton
              what={member.name}
              alsoGoes="and their apps"
              onRemove={() =>
                run(
                  `${path}/remove`,
                  {},
                  `Removed ${member.name}: the apps they approved stop working.`,
                  isMe,
                )
              }
            />
          </div>
        </td>
      ) : null}
    </tr>
  );
}
