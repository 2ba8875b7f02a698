/**
 * Sign-in: the company's identity providers ("Sign in with <name>", a link
 * to the gateway's `/sign-in/idp/<name>`, which comes back here signed in),
 * and the consent page's fields (Member name, Password) unless a provider is
 * the only way in; the limits are on the server.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, type Session } from '../api.ts';
import { Problem } from '../problem.tsx';

interface SignInOptions {
  providers: Array<{ name: string; href: string }>;
  password: boolean;
}

export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [options, setOptions] = useState<SignInOptions>({ providers: [], password: true });
  useEffect(() => {
    api<SignInOptions>('GET', '/sign-in/options').then(setOptions, () => {
      // Without the list the password form still works.
    });
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await api<Session>('POST', '/sign-in', { name, password }));
    } catch (problem) {
      setError(problem);
      setPassword('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="narrow">
      <h1>Sign in to the Portcullis console</h1>
      <Problem error={error} />
      {options.providers.length > 0 && (
        <ul class="idp-sign-in">
          {options.providers.map((provider) => (
            <li key={provider.name}>
              <a href={provider.href}>Sign in with {provider.name}</a>
            </li>
          ))}
        </ul>
      )}
      {options.password && options.providers.length > 0 && (
        <p class="note">Or with your member name and password:</p>
      )}
      {options.password && (
        <form onSubmit={submit}>
          <label for="member">Member name</label>
          <input
            id="member"
            name="member"
            autocomplete="username"
            required
            autofocus
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Sign in
            </button>
          </div>
        </form>
      )}
      <p class="note">
        Owners, operators and viewers of a workspace sign in here. To see and revoke the apps you
        approved, go to <a href="/oauth/consents">your consents</a>.
      </p>
    </main>
  );
}
