/**
 * OAuth clients and consents: which member approved which client (an MCP
 * client that signed in through the gateway's own authorization server),
 * with which scopes, when, and the agent it acts as; revoking a consent stops
 * its refresh tokens at once and its access tokens on their next request.
 * Each row says how its client steps up for a scope its token lacks (HTTP
 * 403, or the isError result ChatGPT reads) and why; an owner chooses it.
 * A client's name and id are the client's own text: shown as text. Below,
 * the machine clients operators registered (`machine-clients.tsx`).
 */
import { api } from '../api.ts';
import { Notice } from '../notice.tsx';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { ShownTime } from '../shown-time.tsx';
import { useChange } from '../use-change.ts';
import { useLoad } from '../use-load.ts';
import { MachineClients } from './machine-clients.tsx';
import { RevokeButton } from './revoke-button.tsx';

interface ConsentRow {
  id: string;
  clientId: string;
  clientName: string;
  member: string;
  agent: string;
  scopes: string[];
  status: 'active' | 'revoked';
  createdAt: string;
  updatedAt: string;
  revokedAt: string | null;
  stepUp: { form: StepUpForm; why: 'chosen' | 'chatgpt' | 'default' };
}

type StepUpForm = 'http' | 'result';
const FORM_WORDS: Record<StepUpForm, string> = {
  http: 'HTTP 403',
  result: 'isError result',
};
const WHY_WORDS = {
  chosen: 'chosen by an owner',
  chatgpt: "default: ChatGPT's redirect URIs",
  default: 'default for this gateway',
} as const;

export function ClientsPage({ canChange, isOwner }: { canChange: boolean; isOwner: boolean }) {
  const { data, error, reload } = useLoad(() => api<ConsentRow[]>('GET', '/consents'), 'consents');
  const change = useChange(() => reload());
  const revoke = (consent: ConsentRow) =>
    change.run(
      () => api('POST', `/consents/${encodeURIComponent(consent.id)}/revoke`),
      `Revoked ${consent.clientName} for ${consent.member}: its tokens stop working on their next request.`,
    );
  const setStepUp = (consent: ConsentRow, stepUp: string) =>
    change.run(
      () => api('POST', `/clients/${encodeURIComponent(consent.clientId)}/step-up`, { stepUp }),
      `${consent.clientName} steps up as chosen from its next request.`,
    );
  // Active consents first, each group newest first.
  const rows = [...(data ?? [])].sort(
    (a, b) =>
      Number(a.status !== 'active') - Number(b.status !== 'active') ||
      b.updatedAt.localeCompare(a.updatedAt),
  );
  return (
    <>
      <h1>OAuth clients</h1>
      <p class="note">
        MCP clients that members connected by signing in on this gateway. Each consent acts as its
        own agent, with the scopes the member approved.
      </p>
      <Problem error={error ?? change.error} />
      <Notice text={change.done} />
      {data && rows.length === 0 ? <p class="panel">No member has approved a client yet.</p> : null}
      {rows.length > 0 ? (
        <table class="cards">
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Approved by</th>
              <th scope="col">Scopes</th>
              <th scope="col">Approved</th>
              <th scope="col">Step-up</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="skip">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id} data-consent={c.id} data-client={c.clientName}>
                <td data-label="Client">
                  <b>{shown(c.clientName)}</b>
                  <br />
                  <span class="note mono-small">{shown(c.clientId)}</span>
                  <br />
                  <span class="note">as agent {shown(c.agent)}</span>
                </td>
                <td data-label="Approved by">{shown(c.member)}</td>
                <td data-label="Scopes">
                  {c.scopes.length === 0
                    ? '—'
                    : c.scopes.map((scope) => (
                        <code key={scope} class="chip">
                          {shown(scope)}
                        </code>
                      ))}
                </td>
                <td data-label="Approved">
                  <ShownTime at={c.createdAt} />
                  {c.updatedAt !== c.createdAt ? (
                    <span class="note">
                      <br />
                      again <ShownTime at={c.updatedAt} />
                    </span>
                  ) : null}
                </td>
                <td data-label="Step-up">
                  {FORM_WORDS[c.stepUp.form]}
                  <br />
                  <span class="note">{WHY_WORDS[c.stepUp.why]}</span>
                  {isOwner && !c.clientId.includes('://') ? (
                    <>
                      <br />
                      <label class="skip" for={`step-up-${c.id}`}>
                        Step-up form for {shown(c.clientName)}
                      </label>
                      <select
                        class="step-up"
                        id={`step-up-${c.id}`}
                        value={c.stepUp.why === 'chosen' ? c.stepUp.form : 'default'}
                        onChange={(event) => setStepUp(c, event.currentTarget.value)}
                      >
                        <option value="default">Default</option>
                        <option value="http">HTTP 403</option>
                        <option value="result">isError result</option>
                      </select>
                    </>
                  ) : null}
                </td>
                <td data-label="Status">
                  {c.status === 'active' ? (
                    <span class="badge health-ok">active</span>
                  ) : (
                    <span class="badge">
                      revoked {c.revokedAt ? <ShownTime at={c.revokedAt} /> : ''}
                    </span>
                  )}
                </td>
                <td data-label="">
                  {c.status === 'active' && canChange ? (
                    <RevokeButton
                      what={`${c.clientName} for ${c.member}`}
                      onRevoke={() => revoke(c)}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <MachineClients canChange={canChange} />
    </>
  );
}
