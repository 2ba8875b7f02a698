/**
 * Agents: the workspace's agents, a new one (its key shown here once, with a
 * copy button and the snippet an MCP client takes), and revoking one (its
 * next request is refused).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Notice } from '../notice.tsx';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { ShownTime } from '../shown-time.tsx';
import type { Agent } from '../types.ts';
import { useChange } from '../use-change.ts';
import { useLoad } from '../use-load.ts';
import { RevokeButton } from './revoke-button.tsx';

export function AgentsPage({ canChange }: { canChange: boolean }) {
  const { data, error, reload } = useLoad(() => api<Agent[]>('GET', '/agents'), 'agents');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ agent: Agent; key: string }>();
  const change = useChange(() => reload());
  const create = async (event: Event) => {
    event.preventDefault();
    const made = await change.run(async () => {
      setCreated(await api<{ agent: Agent; key: string }>('POST', '/agents', { name }));
    }, '');
    if (made) setName('');
  };
  const revoke = (agent: Agent) => {
    setCreated(undefined);
    change.run(
      () => api('POST', `/agents/${encodeURIComponent(agent.name)}/revoke`),
      `Revoked ${agent.name}: its next request is refused.`,
    );
  };
  return (
    <>
      <h1>Agents</h1>
      <Problem error={error ?? change.error} />
      <Notice text={change.done} />
      {created ? <NewKey agent={created.agent} agentKey={created.key} /> : null}
      {canChange ? (
        <form class="panel" onSubmit={create}>
          <h2>New agent</h2>
          <label for="agent-name">Agent name</label>
          <input
            id="agent-name"
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <div class="actions">
            <button type="submit" class="primary">
              Create agent
            </button>
          </div>
        </form>
      ) : null}
      {data && data.length === 0 ? <p>No agents yet.</p> : null}
      {data && data.length > 0 ? (
        <table class="cards">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="skip">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.map((agent) => (
              <tr key={agent.id} data-agent={agent.name}>
                <td data-label="Name">{shown(agent.name)}</td>
                <td data-label="Key">
                  <code>{shown(agent.keyPrefix)}…</code>
                </td>
                <td data-label="Status">{agent.status}</td>
                <td data-label="Created">
                  <ShownTime at={agent.createdAt} />
                </td>
                <td data-label="">
                  {agent.status === 'active' ? (
                    <RevokeButton
                      what={agent.name}
                      disabled={!canChange}
                      onRevoke={() => revoke(agent)}
                    />
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

function NewKey({ agent, agentKey }: { agent: Agent; agentKey: string }) {
  const [copied, setCopied] = useState('');
  const snippet = JSON.stringify(
    {
      mcpServers: {
        portcullis: {
          type: 'http',
          url: `${window.location.origin}/mcp`,
          headers: { Authorization: `Bearer ${agentKey}` },
        },
      },
    },
    null,
    2,
  );
  const copy = async (text: string, what: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(`${what} copied.`);
    } catch {
      setCopied('Copying is not allowed here: select the text and copy it.');
    }
  };
  return (
    <section class="panel" aria-labelledby="new-key">
      <h2 id="new-key">Key of {shown(agent.name)}</h2>
      <p class="caution" role="status">
        This key is shown once. Copy it now: the gateway keeps only its hash.
      </p>
      <label for="agent-key">Agent key</label>
      <div class="key">
        <input id="agent-key" readonly value={agentKey} />
        <button type="button" onClick={() => copy(agentKey, 'Key')}>
          Copy key
        </button>
      </div>
      <h3>Client configuration</h3>
      <pre id="client-snippet">{snippet}</pre>
      <div class="actions">
        <button type="button" onClick={() => copy(snippet, 'Configuration')}>
          Copy configuration
        </button>
      </div>
      <p class="note" aria-live="polite">
        {copied}
      </p>
      <p class="note">
        The agent can use no connection yet: grant it one under <b>Grants</b> on a connection's page
        (<a href="#/connections">Connections</a>).
      </p>
    </section>
  );
}
