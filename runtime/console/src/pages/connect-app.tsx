/**
 * An app's connect form, from its catalog entry or curated definition: the
 * key as a password field with where to get it, settings shown with their
 * default and a Change control (the default metro, the instance's host),
 * and the connection's name. Connecting is the command line's verb; a
 * refusal is shown beside the field it names. Values are write-only: the
 * field is emptied once sent, and nothing the gateway holds is shown again.
 */
import { useState } from 'preact/hooks';
import { ApiError, api } from '../api.ts';
import type { ConnectedApp, GalleryApp, GallerySetting } from '../gallery-types.ts';
import { Problem } from '../problem.tsx';
import { shown } from '../shown.ts';
import { useLoad } from '../use-load.ts';
import { SettingField } from './connect-app-fields.tsx';
import { FieldError } from './field-error.tsx';
import { AppMark, KindAndCounts, OutsideLink } from './gallery-parts.tsx';

export function ConnectAppPage({ app: id, canChange }: { app: string; canChange: boolean }) {
  const { data, error } = useLoad(() => api<GalleryApp[]>('GET', '/gallery'), 'gallery');
  const app = data?.find((a) => a.id === id);
  return (
    <>
      <p class="gallery-back">
        <a href="#/connect">← All apps</a>
      </p>
      <Problem error={error} />
      {data && !app ? (
        <p class="error" role="alert">
          No app {shown(id)} in the gallery. <a href="#/connect">Choose one from the list</a>.
        </p>
      ) : null}
      {app ? <ConnectForm key={app.id} app={app} canChange={canChange} /> : null}
    </>
  );
}

function ConnectForm({ app, canChange }: { app: GalleryApp; canChange: boolean }) {
  const [name, setName] = useState('');
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [settings, setSettings] = useState<Record<string, string>>({});
  const [changing, setChanging] = useState<Record<string, boolean>>({});
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const fieldOf = fieldNamer(app);
  const named = failure instanceof ApiError ? fieldOf(failure.field) : undefined;

  const send = async (withKey: boolean) => {
    setFailure(undefined);
    setBusy(true);
    const changed = Object.fromEntries(
      Object.entries(settings).filter(([setting]) => changing[setting]),
    );
    try {
      const done = await api<ConnectedApp>(
        'POST',
        `/gallery/${encodeURIComponent(app.id)}/connect`,
        {
          ...(name.trim() ? { name: name.trim() } : {}),
          ...(app.settings.length > 0 ? { settings: changed } : {}),
          ...(withKey ? { credential: secrets } : {}),
        },
      );
      const to = encodeURIComponent(done.connection);
      window.location.hash = done.next === 'review' ? `#/connections/${to}` : `#/connect/own/${to}`;
    } catch (problem) {
      setFailure(problem);
      if (problem instanceof ApiError && problem.field?.startsWith('settings.'))
        setChanging((open) => ({ ...open, [problem.field!.slice('settings.'.length)]: true }));
    } finally {
      // Write-only: a key typed here is never kept, whether it was taken or refused.
      setSecrets({});
      setBusy(false);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    send(true);
  };
  const keyed = app.fields.length > 0;
  const nameField = (
    <div class="gallery-field">
      <label for="connection-name">Connection name</label>
      <input
        id="connection-name"
        autocomplete="off"
        disabled={!canChange}
        placeholder={app.defaultName}
        value={name}
        aria-invalid={named === 'connection-name' ? 'true' : undefined}
        aria-describedby="guide-name connection-name-error"
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <p class="gallery-guide" id="guide-name">
        Optional: <code>{shown(app.defaultName)}</code> when left empty. Agents see its tools under
        this name.
      </p>
      <FieldError
        field="connection-name"
        error={named === 'connection-name' ? failure : undefined}
      />
    </div>
  );
  return (
    <>
      <div class="gallery-title">
        <AppMark app={app} />
        <h1>Connect {shown(app.name)}</h1>
      </div>
      <p>{shown(app.description)}</p>
      <KindAndCounts app={app} />
      {app.connected.length > 0 ? (
        <p class="note">
          Already connected as {shown(app.connected.join(', '))}: its key is sealed and never shown
          again. A second connection needs another name.
        </p>
      ) : null}
      {!canChange ? (
        <p class="note">Only owners and operators connect apps; you can see what it asks for.</p>
      ) : null}
      {named === undefined ? <Problem error={failure} /> : null}
      {app.remote ? <div class="panel">{nameField}</div> : null}
      {app.remote?.signIn ? (
        <section class="panel" aria-labelledby="sign-in">
          <h2 id="sign-in">Sign in to continue</h2>
          <p>
            {shown(app.name)} asks you to sign in at its own site, in your browser. You will see
            which host you are sent to before you go.
          </p>
          <div class="actions">
            <button
              type="button"
              class="primary"
              disabled={!canChange || busy}
              onClick={() => send(false)}
            >
              Sign in to continue
            </button>
          </div>
        </section>
      ) : null}
      {keyed ? (
        <form class="panel" onSubmit={submit} aria-labelledby="with-key" novalidate>
          <h2 id="with-key">{app.remote?.signIn ? 'Or add a key' : 'Add key'}</h2>
          {app.fields.map((field) => (
            <div key={field.name} class="gallery-field">
              <label for={`field-${field.name}`}>{shown(field.label)}</label>
              <input
                id={`field-${field.name}`}
                type={inputType(field.secret)}
                autocomplete="off"
                spellcheck={false}
                disabled={!canChange}
                value={secrets[field.name] ?? ''}
                aria-invalid={named === `field-${field.name}` ? 'true' : undefined}
                aria-describedby={`guide-${field.name} field-${field.name}-error`}
                onInput={(e) => {
                  const value = e.currentTarget.value;
                  setSecrets((all) => ({ ...all, [field.name]: value }));
                }}
              />
              <p class="gallery-guide" id={`guide-${field.name}`}>
                {field.obtain ? (
                  <>
                    <b>Where to get it:</b> {shown(field.obtain.text)}{' '}
                    <OutsideLink href={field.obtain.url}>{hostOf(field.obtain.url)}</OutsideLink>
                  </>
                ) : (
                  <>
                    See <OutsideLink href={app.documentationUrl}>the documentation</OutsideLink>.
                  </>
                )}
              </p>
              {field.secret ? (
                <p class="gallery-guide">
                  Write-only: sealed in the gateway's vault, sent only to {shown(app.name)}, never
                  shown again.
                </p>
              ) : null}
              <FieldError
                field={`field-${field.name}`}
                error={named === `field-${field.name}` ? failure : undefined}
              />
            </div>
          ))}
          {app.settings.map((setting: GallerySetting) => (
            <SettingField
              key={setting.name}
              setting={setting}
              disabled={!canChange}
              open={changing[setting.name] ?? setting.default === undefined}
              value={settings[setting.name] ?? setting.default ?? ''}
              error={named === `setting-${setting.name}` ? failure : undefined}
              onOpen={() => {
                setChanging((open) => ({ ...open, [setting.name]: true }));
                setSettings((all) => ({
                  ...all,
                  [setting.name]: all[setting.name] ?? setting.default ?? '',
                }));
              }}
              onChange={(value) => setSettings((all) => ({ ...all, [setting.name]: value }))}
            />
          ))}
          {app.remote ? null : nameField}
          <div class="actions">
            <button type="submit" class="primary" disabled={!canChange || busy}>
              {busy ? 'Connecting…' : `Connect ${app.name}`}
            </button>
          </div>
          {app.kind === 'native' ? (
            <p class="note">
              The gateway tries the key with a read before it keeps anything; a refused key keeps
              nothing.
            </p>
          ) : null}
        </form>
      ) : null}
      {app.remote ? (
        <p class="note">
          Address <span class="mono">{shown(app.remote.url)}</span>.{' '}
          {shown(app.remote.support.text)}{' '}
          <OutsideLink href={app.remote.support.url}>Support</OutsideLink>
        </p>
      ) : null}
      <p class="note">
        <OutsideLink href={app.documentationUrl}>{`${app.name} documentation`}</OutsideLink>
      </p>
    </>
  );
}

/** The element id of the input a refusal's field names (`credential.token`, `settings.metro`, `name`). */
function fieldNamer(app: GalleryApp) {
  return (field: string | undefined): string | undefined => {
    if (field === undefined) return undefined;
    if (field === 'name') return 'connection-name';
    const [head, rest] = [field.split('.')[0], field.split('.').slice(1).join('.')];
    if (head === 'credential') {
      const named = app.fields.find((f) => f.name === rest) ?? app.fields[0];
      return named ? `field-${named.name}` : undefined;
    }
    if (head === 'settings' && app.settings.some((s) => s.name === rest)) return `setting-${rest}`;
    return undefined;
  };
}

/** A secret is typed into a password field, anything else into a text field. */
function inputType(secret: boolean): 'password' {
  // Preact's types tie a password input's props to a literal `type`; both take the same props here.
  return (secret ? 'password' : 'text') as 'password';
}

/** The host a guidance link goes to, as its text (`app.daytona.io`). */
function hostOf(url: string | undefined): string {
  try {
    return url ? new URL(url).host : '';
  } catch {
    return '';
  }
}
