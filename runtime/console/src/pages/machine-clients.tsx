/**
 * Machine clients on the OAuth clients page: each client an operator
 * registered for the `client_credentials` grant and ID-JAGs (`portcullis
 * oauth client add --machine`), how it authenticates (a secret, never shown
 * in any form, or the keys at its JWKS URL), the agent of its own name its
 * tokens act as and that agent's grants. Owners and operators remove one
 * (a second click confirms): its agent and grants go with it and its tokens
 * are refused from their next request. Names and URLs are shown as text.
 */
import { api } from '../api.ts';
import { Notice } from '../notice.tsx';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { ShownTime } from '../shown-time.tsx';
import { useChange } from '../use-change.ts';
import { useLoad } from '../use-load.ts';
import { RemoveButton } from './remove-button.tsx';

interface MachineClientRow {
  id: string;
  name: string;
  auth: 'client_secret_basic' | 'private_key_jwt';
  jwksUri: string | null;
  agent: string;
  grants: Array<{ connection: string; scope: 'all' | 'reads' | 'actions'; actions: string[] }>;
  createdAt: string;
}

const AUTH_WORDS: Record<MachineClientRow['auth'], string> = {
  client_secret_basic: 'a secret',
  private_key_jwt: 'keys at its JWKS URL',
};
const SCOPE_WORDS = { all: 'everything', reads: 'reads', actions: 'chosen actions' } as const;

export function MachineClients({ canChange }: { canChange: boolean }) {
  const { data, error, reload } = useLoad(
    () => api<MachineClientRow[]>('GET', '/machine-clients'),
    'machine-clients',
  );
  const change = useChange(() => reload());
  const remove = (client: MachineClientRow) =>
    change.run(
      () => api('POST', `/machine-clients/${encodeURIComponent(client.id)}/remove`),
      `Removed ${client.name} and its agent: its tokens are refused from their next request.`,
    );
  return (
    <section aria-labelledby="machine-clients">
      <h2 id="machine-clients">Machine clients</h2>
      <p class="note">
        Clients that get tokens without a browser (<code>client_credentials</code>, ID-JAGs),
        registered with{' '}
        <code>
          portcullis oauth client add <span class="whole">--machine</span>
        </code>
        . Each acts as an agent of its own name, with that agent's grants.
      </p>
      <Problem error={error ?? change.error} />
      <Notice text={change.done} />
      {data && data.length === 0 ? (
        <p class="panel">No machine client is registered in this workspace.</p>
      ) : null}
      {data && data.length > 0 ? (
        <table class="cards">
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Authenticates with</th>
              <th scope="col">Grants</th>
              <th scope="col">Registered</th>
              <th scope="col">
                <span class="skip">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.map((client) => (
              <MachineClientItem
                key={client.id}
                client={client}
                canChange={canChange}
                onRemove={() => remove(client)}
              />
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function MachineClientItem({
  client,
  canChange,
  onRemove,
}: {
  client: MachineClientRow;
  canChange: boolean;
  onRemove: () => Promise<boolean>;
}) {
  return (
    <tr data-machine-client={client.id}>
      <td data-label="Client">
        <b>{shown(client.name)}</b>
        <br />
        <span class="note mono-small whole">{shown(client.id)}</span>
        <br />
        <span class="note">
          as agent <span class="whole">{shown(client.agent)}</span>
        </span>
      </td>
      <td data-label="Authenticates with">
        <code class="chip">{client.auth}</code>
        <br />
        <span class="note">{AUTH_WORDS[client.auth]}</span>
        {client.jwksUri !== null ? (
          <>
            <br />
            <span class="note mono-small url">{shown(client.jwksUri)}</span>
          </>
        ) : null}
      </td>
      <td data-label="Grants">
        {client.grants.length === 0 ? (
          <span class="note">none yet: its tokens reach nothing</span>
        ) : (
          client.grants.map((g) => (
            <span class="grant-line" key={g.connection}>
              {shown(g.connection)}: {SCOPE_WORDS[g.scope]}
              {g.scope === 'actions' ? ` (${g.actions.map((a) => shown(a)).join(', ')})` : ''}
            </span>
          ))
        )}
      </td>
      <td data-label="Registered">
        <ShownTime at={client.createdAt} />
      </td>
      <td data-label="">
        {canChange ? (
          <div class="row-change">
            <RemoveButton what={client.name} alsoGoes="and its agent" onRemove={onRemove} />
          </div>
        ) : null}
      </td>
    </tr>
  );
}
