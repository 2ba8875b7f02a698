/** Sign-in: the consent page's fields (Member name, Password) and button, its limits on the server. */
import { useState } from 'preact/hooks';
import { api, type Session } from '../api.ts';
import { Problem } from '../problem.tsx';

export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
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
      <p class="note">
        Owners, operators and viewers of a workspace sign in here. To see and revoke the apps you
        approved, go to <a href="/oauth/consents">your consents</a>.
      </p>
    </main>
  );
}
