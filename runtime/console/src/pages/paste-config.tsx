/**
 * Advanced → Paste a config (seed 000): an `mcpServers` snippet, read by the
 * gateway for its servers and the header names whose values it still needs
 * (asked for here in password fields, write-only), then imported the way
 * `portcullis import` does. The question-mark control gives the request to
 * hand to an agent for a paste-ready snippet.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { ConnectStep, PastedServer } from '../connect-types.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { FormProblem } from './connect-fields.tsx';
import { FieldError, fieldError, invalidProps } from './field-error.tsx';

export function PasteConfig({
  canChange,
  onStep,
}: {
  canChange: boolean;
  onStep: (step: ConnectStep) => void;
}) {
  const [config, setConfig] = useState('');
  const [servers, setServers] = useState<PastedServer[]>();
  const [chosen, setChosen] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const server = servers?.find((s) => s.name === chosen) ?? servers?.[0];

  const read = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const found = await api<{ servers: PastedServer[] }>('POST', '/connect/config/read', {
        config,
      });
      setServers(found.servers);
      setChosen(found.servers[0]?.name ?? '');
      setValues({});
    } catch (problem) {
      setServers(undefined);
      setError(problem);
    } finally {
      setBusy(false);
    }
  };
  const importIt = async (event: Event) => {
    event.preventDefault();
    if (!server) return;
    setError(undefined);
    setBusy(true);
    try {
      const step = await api<ConnectStep>('POST', '/connect/config/import', {
        config,
        server: server.name,
        values,
      });
      setValues({});
      onStep(step);
    } catch (problem) {
      setError(problem);
    } finally {
      setBusy(false);
    }
  };
  const configError = fieldError(error, 'config', 'mcpServers');
  return (
    <details class="panel advanced">
      <summary>Advanced</summary>
      <PasteHelp />
      <form onSubmit={read} aria-labelledby="paste-a-config">
        <fieldset disabled={!canChange}>
          <label for="pasted-config">Config (an mcpServers JSON object)</label>
          <textarea
            id="pasted-config"
            rows={7}
            spellcheck={false}
            value={config}
            onInput={(e) => {
              setConfig(e.currentTarget.value);
              setServers(undefined);
            }}
            {...invalidProps('pasted-config', configError)}
          />
          <FieldError field="pasted-config" error={configError} />
          <div class="actions">
            <button type="submit" disabled={busy || config.trim() === ''}>
              Read config
            </button>
          </div>
        </fieldset>
      </form>
      {server ? (
        <form onSubmit={importIt} class="pasted">
          <fieldset disabled={!canChange}>
            {servers && servers.length > 1 ? (
              <>
                <label for="pasted-server">Server</label>
                <select
                  id="pasted-server"
                  value={server.name}
                  onChange={(e) => setChosen(e.currentTarget.value)}
                >
                  {servers.map((s) => (
                    <option key={s.name} value={s.name}>
                      {shown(s.name)}
                    </option>
                  ))}
                </select>
              </>
            ) : null}
            <p>
              <b>{shown(server.name)}</b> at <span class="mono">{shown(server.url)}</span>
            </p>
            {server.headers.length === 0 ? (
              <p class="note">It names no headers: nothing to fill in.</p>
            ) : null}
            {server.headers.map((header) => {
              const id = `pasted-value-${header.header}`;
              const refusal = fieldError(error, `values.${header.header}`);
              return header.given ? (
                <p class="note" key={header.header}>
                  <code>{shown(header.header)}</code>: a value was pasted (stored sealed, never
                  shown).
                </p>
              ) : (
                <div key={header.header}>
                  <label for={id}>
                    {shown(header.header)}
                    {header.header === 'Authorization' ? ' (the key, sent as Bearer)' : ''}
                  </label>
                  <input
                    id={id}
                    type="password"
                    autocomplete="off"
                    value={values[header.header] ?? ''}
                    onInput={(e) =>
                      setValues({ ...values, [header.header]: e.currentTarget.value })
                    }
                    {...invalidProps(id, refusal)}
                  />
                  {header.placeholder ? (
                    <p class="note">
                      In the paste: <code>{shown(header.placeholder)}</code>
                    </p>
                  ) : null}
                  <FieldError field={id} error={refusal} />
                </div>
              );
            })}
            <div class="actions">
              <button type="submit" class="primary" disabled={busy}>
                Connect {shown(server.name)}
              </button>
            </div>
          </fieldset>
        </form>
      ) : null}
      <FormProblem
        error={error}
        labels={{ config: 'Config', mcpServers: 'Config', values: 'header value' }}
      />
    </details>
  );
}

/** The question-mark control: what to paste, and the request to hand to an agent for it. */
function PasteHelp() {
  const [open, setOpen] = useState(false);
  const [prompt, setPrompt] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [copied, setCopied] = useState(false);
  const toggle = async () => {
    const next = !open;
    setOpen(next);
    if (next && prompt === undefined)
      try {
        setPrompt((await api<{ prompt: string }>('GET', '/connect/config/help')).prompt);
      } catch (problem) {
        setError(problem);
      }
  };
  const copy = async () => {
    if (prompt === undefined) return;
    await navigator.clipboard.writeText(prompt);
    setCopied(true);
  };
  return (
    <>
      <div class="paste-title">
        <h2 id="paste-a-config">Paste a config</h2>
        <button
          type="button"
          class="help-toggle"
          aria-expanded={open}
          aria-controls="paste-help"
          aria-label="Help: what to paste, and a request to hand to an agent"
          onClick={toggle}
        >
          ?
        </button>
      </div>
      {open ? (
        <div id="paste-help" class="help">
          <p>
            Don't know the address or the headers? Hand this request to an agent: it asks the agent
            to consult the vendor's current documentation and reply with one paste-ready{' '}
            <code>mcpServers</code> JSON object using credential placeholders, plus notes on how to
            obtain each credential. Paste only the JSON block back here: Portcullis reads the header
            names from it and asks you for the values, which it stores sealed.
          </p>
          <Problem error={error} />
          {prompt !== undefined ? (
            <>
              <label for="agent-request">Request for an agent</label>
              <textarea id="agent-request" readOnly rows={10} value={prompt} />
              <div class="actions tight">
                <button type="button" onClick={copy}>
                  Copy request
                </button>
                {copied ? (
                  <span class="note" role="status">
                    Copied.
                  </span>
                ) : null}
              </div>
            </>
          ) : null}
        </div>
      ) : null}
    </>
  );
}
