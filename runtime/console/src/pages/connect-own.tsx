/**
 * Connect your own MCP server (seed 000's guided route): a Server address
 * and Check link, the gateway probes it (`portcullis connect <url>`'s verb)
 * and the page goes on with what the server needs (`connect-steps.tsx`);
 * Advanced authentication, collapsed, for a key, headers or a client the
 * operator registered; Advanced → Paste a config for a snippet. Opened as
 * `#/connect/own/<name>`, it continues that connection where it stands
 * (a draft waiting for a sign-in or a key, or its tools to review).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { ConnectStep } from '../connect-types.ts';
import {
  AdvancedAuthentication,
  type AuthState,
  connectCredential,
  forgetValues,
  NO_AUTH,
} from './connect-auth.tsx';
import { FormProblem } from './connect-fields.tsx';
import { StepPanel } from './connect-steps.tsx';
import { FieldError, fieldError, invalidProps } from './field-error.tsx';
import { PasteConfig } from './paste-config.tsx';

export function ConnectOwnPage({
  connection,
  canChange,
}: {
  connection: string | undefined;
  canChange: boolean;
}) {
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [auth, setAuth] = useState<AuthState>(NO_AUTH);
  const [authOpen, setAuthOpen] = useState(false);
  const [step, setStep] = useState<ConnectStep>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const address = useRef<HTMLInputElement>(null);

  const show = (next: ConnectStep) => {
    setStep(next);
    setUrl(next.url);
    setName(next.connection);
    if (next.next === 'credential') {
      setAuthOpen(true);
      setAuth((current) => (current.choice === 'none' ? { ...current, choice: 'key' } : current));
    }
    if (window.location.hash !== `#/connect/own/${encodeURIComponent(next.connection)}`)
      history.replaceState(null, '', `#/connect/own/${encodeURIComponent(next.connection)}`);
  };

  // A draft (or a connection back from its sign-in) continued where it stands.
  useEffect(() => {
    if (!connection) return;
    api<ConnectStep>('GET', `/connect/own/${encodeURIComponent(connection)}`).then(show, setError);
  }, [connection]);

  const check = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const next = await api<ConnectStep>('POST', '/connect/own', {
        url,
        ...(name.trim() ? { name: name.trim() } : {}),
        ...connectCredential(auth),
      });
      setAuth(forgetValues(auth));
      show(next);
    } catch (problem) {
      setError(problem);
      if (fieldError(problem, 'url')) address.current?.focus();
      if (fieldError(problem, 'token', 'headers', 'credential')) setAuthOpen(true);
    } finally {
      setBusy(false);
    }
  };
  const urlError = fieldError(error, 'url');
  const nameError = fieldError(error, 'name');
  return (
    <>
      <p>
        <a href="#/connections">← Connections</a>
      </p>
      <h1>Connect your own MCP server</h1>
      <p class="lead">
        Give the address of a remote MCP server. Portcullis checks it and walks you through whatever
        it needs: nothing, a browser sign-in, or a key or headers.
      </p>
      {!canChange ? <p class="note">Viewers see this page but connect nothing.</p> : null}
      <form class="panel" onSubmit={check}>
        <fieldset disabled={!canChange}>
          <label for="server-address">Server address</label>
          <input
            id="server-address"
            ref={address}
            type="url"
            required
            inputMode="url"
            autocomplete="off"
            spellcheck={false}
            placeholder="https://mcp.example.com/mcp"
            value={url}
            onInput={(e) => {
              setUrl(e.currentTarget.value);
              // Another address is another connection: the step shown was the old one's.
              if (step && e.currentTarget.value !== step.url) {
                setStep(undefined);
                setName('');
              }
            }}
            {...invalidProps('server-address', urlError)}
          />
          <FieldError field="server-address" error={urlError} />
          <label for="connection-name">
            Connection name <span class="note">(optional: derived from the host)</span>
          </label>
          <input
            id="connection-name"
            autocomplete="off"
            spellcheck={false}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            {...invalidProps('connection-name', nameError)}
          />
          <FieldError field="connection-name" error={nameError} />
          <AdvancedAuthentication
            auth={auth}
            setAuth={setAuth}
            open={authOpen}
            setOpen={setAuthOpen}
            error={error}
          />
          <div class="actions">
            {/* Once a link is checked, the next step's button is the one to press: this one steps back. */}
            <button type="submit" class={step ? undefined : 'primary'} disabled={busy}>
              {busy ? 'Checking…' : 'Check link'}
            </button>
          </div>
        </fieldset>
        <FormProblem
          error={error}
          labels={{
            url: 'Server address',
            name: 'Connection name',
            token: 'Key or token',
            headers: 'Custom headers',
            credential: 'Advanced authentication',
            client_id: 'Client ID',
            clientId: 'Client ID',
          }}
        />
      </form>
      {step ? (
        <StepPanel
          step={step}
          auth={auth}
          canChange={canChange}
          needClient={(problem) => {
            setError(problem);
            if (problem === undefined) return;
            setAuthOpen(true);
            setAuth((current) => ({ ...current, choice: 'browser' }));
          }}
        />
      ) : null}
      <PasteConfig canChange={canChange} onStep={show} />
    </>
  );
}
