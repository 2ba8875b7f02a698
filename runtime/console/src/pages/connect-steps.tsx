/**
 * The step after Check link, one per branch of seed 000's table: sign in to
 * continue (naming the host the operator is sent to), give the key or
 * headers the server's documentation lists (the draft is kept meanwhile),
 * or review the tools found, each quarantined until approved. The server's
 * host and its label stay on every step; its texts are shown as text.
 */
import { useState } from 'preact/hooks';
import { changeActions } from '../action-changes.ts';
import { ApiError, api } from '../api.ts';
import type { ConnectStep, SignInLink } from '../connect-types.ts';
import { Notice } from '../notice.tsx';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import type { ActionView } from '../types.ts';
import { useChange } from '../use-change.ts';
import { useLoad } from '../use-load.ts';
import { ClassBadge } from './action-badges.tsx';
import type { AuthState } from './connect-auth.tsx';
import { ServerLabel } from './server-label.tsx';

export function StepPanel({
  step,
  auth,
  canChange,
  needClient,
}: {
  step: ConnectStep;
  auth: AuthState;
  canChange: boolean;
  /** The provider wants a client the operator registered: Advanced authentication opens on it. */
  needClient: (problem: unknown) => void;
}) {
  return (
    <section class="panel step" aria-labelledby="step-title" data-step={step.next}>
      {step.next === 'sign_in' ? (
        <SignInStep step={step} auth={auth} canChange={canChange} needClient={needClient} />
      ) : step.next === 'credential' ? (
        <CredentialStep step={step} />
      ) : (
        <ReviewStep step={step} canChange={canChange} />
      )}
    </section>
  );
}

function DraftKept({ step }: { step: ConnectStep }) {
  return (
    <p class="note">
      The draft connection <b>{shown(step.connection)}</b> is kept: continue it later from
      Connections, you do not start over.
    </p>
  );
}

function SignInStep({
  step,
  auth,
  canChange,
  needClient,
}: {
  step: ConnectStep;
  auth: AuthState;
  canChange: boolean;
  needClient: (problem: unknown) => void;
}) {
  const [error, setError] = useState<unknown>();
  const [clientNeeded, setClientNeeded] = useState(false);
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setError(undefined);
    setBusy(true);
    const client =
      auth.choice === 'browser' && auth.clientId.trim() !== ''
        ? {
            clientId: auth.clientId.trim(),
            ...(auth.clientSecret ? { clientSecret: auth.clientSecret } : {}),
          }
        : {};
    try {
      const started = await api<SignInLink>(
        'POST',
        `/connect/own/${encodeURIComponent(step.connection)}/sign-in`,
        client,
      );
      // The gateway's own page: it names the host again, then sends the browser there.
      window.location.assign(new URL(started.link, window.location.href).href);
    } catch (problem) {
      setBusy(false);
      // A client to enter: the refusal is shown on its fields, under Advanced authentication.
      const wantsClient = problem instanceof ApiError && problem.code === 'oauth_client_required';
      setClientNeeded(wantsClient);
      setError(wantsClient ? undefined : problem);
      needClient(wantsClient ? problem : undefined);
    }
  };
  return (
    <>
      <h2 id="step-title">Sign in to continue</h2>
      <ServerLabel server={step} />
      <p>
        This server asks for a browser sign-in. You will be sent to{' '}
        <b class="mono" data-sign-in-host>
          {shown(step.signIn?.host ?? '')}
        </b>{' '}
        to sign in, then back here to review its tools.
      </p>
      <Problem error={error} />
      {clientNeeded ? (
        <p class="note">
          Enter the client ID and secret you registered at the provider under Advanced
          authentication → Browser sign-in, then sign in again.
        </p>
      ) : null}
      <div class="actions">
        <button type="button" class="primary" disabled={!canChange || busy} onClick={start}>
          Sign in to continue
        </button>
      </div>
      <DraftKept step={step} />
    </>
  );
}

function CredentialStep({ step }: { step: ConnectStep }) {
  return (
    <>
      <h2 id="step-title">This server needs a key or headers</h2>
      <ServerLabel server={step} />
      <p>
        It asks for authorization and publishes no sign-in. Add the key or the headers its
        documentation lists under <b>Advanced authentication</b> above, then press <b>Check link</b>{' '}
        again.
      </p>
      {step.headerNames.length > 0 ? (
        <p class="note">
          Headers given so far:{' '}
          {step.headerNames.map((name) => (
            <code key={name}>{shown(name)}</code>
          ))}
        </p>
      ) : null}
      <DraftKept step={step} />
    </>
  );
}

const STATE_WORDS: Record<ActionView['state'], string> = {
  quarantined: 'quarantined',
  enabled: 'on',
  ask: 'ask',
  disabled: 'off',
  retired: 'retired',
};

function ReviewStep({ step, canChange }: { step: ConnectStep; canChange: boolean }) {
  const name = encodeURIComponent(step.connection);
  const stored = useLoad(() => api<ConnectStep>('GET', `/connect/own/${name}`), `step:${name}`);
  const actions = useLoad(
    () => api<ActionView[]>('GET', `/connections/${name}/actions`),
    `actions:${name}`,
  );
  const change = useChange(() => actions.reload());
  const texts = new Map((stored.data?.tools ?? []).map((tool) => [tool.name, tool]));
  const waiting = (actions.data ?? []).filter((a) => a.review === 'new' || a.review === 'changed');
  const approve = (names: string[] | 'all') =>
    change.run(
      () =>
        changeActions(
          step.connection,
          'review',
          names === 'all' ? { all: true } : { actions: names },
        ),
      names === 'all'
        ? `Approved every action of ${step.connection}: its reads are on; writes and destructive actions stay off until you turn them on.`
        : `Approved: ${names.join(', ')}`,
    );
  const server = stored.data?.server ?? step.server;
  return (
    <>
      <h2 id="step-title">Review the tools found</h2>
      <ServerLabel server={step} />
      {server ? (
        <p class="note">
          The server calls itself <b>{shown(server.name)}</b> {shown(server.version)}.
        </p>
      ) : null}
      <p>
        Connected as <b>{shown(step.connection)}</b>. Every action found is quarantined until you
        review it; once approved, reads are on and state-changing actions start off.
      </p>
      <Problem error={stored.error ?? actions.error ?? change.error} />
      <Notice text={change.done} />
      {actions.data && actions.data.length === 0 ? <p>The server offers no tools.</p> : null}
      <ul class="found">
        {(actions.data ?? []).map((action) => {
          const text = texts.get(action.action);
          return (
            <li key={action.action} data-found={action.name}>
              <div>
                <code>{shown(action.name)}</code> <ClassBadge action={action} />{' '}
                <span class={`badge state-${action.state}`}>{STATE_WORDS[action.state]}</span>{' '}
                {action.review === 'reviewed' ? <span class="badge">reviewed</span> : null}
              </div>
              {text?.title ? <p class="found-title">{shown(text.title)}</p> : null}
              {text?.description ? (
                <p class="found-description" data-description>
                  {shown(text.description)}
                </p>
              ) : null}
              {action.review === 'new' || action.review === 'changed' ? (
                <div class="actions tight">
                  <button
                    type="button"
                    disabled={!canChange}
                    onClick={() => approve([action.name])}
                  >
                    Approve <span class="skip">{shown(action.name)}</span>
                  </button>
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
      <div class="actions">
        {waiting.length > 0 ? (
          <button
            type="button"
            class="primary"
            disabled={!canChange}
            onClick={() => approve('all')}
          >
            Approve all {waiting.length}
          </button>
        ) : null}
        <a class="button-link" href={`#/connections/${name}`}>
          Open {shown(step.connection)}: policies and agents' access
        </a>
      </div>
    </>
  );
}
