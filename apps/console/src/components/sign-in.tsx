import { useState } from 'preact/hooks';
import { type Api, asProblem, type Problem } from '../api.ts';
import { ProblemView } from './problem-view.tsx';

/** Client id and secret → a bearer token (client-credentials grant). The secret is never stored. */
export function SignIn({ api, onSignedIn }: { api: Api; onSignedIn: () => void }) {
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await api.signIn(clientId.trim(), secret);
      setSecret('');
      onSignedIn();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card sign-in" onSubmit={submit}>
      <h1>Conduit console</h1>
      <p class="muted">Sign in with an API client’s id and secret.</p>
      <label>
        Client id
        <input
          name="client_id"
          autoComplete="username"
          value={clientId}
          onInput={(e) => setClientId(e.currentTarget.value)}
          required
        />
      </label>
      <label>
        Client secret
        <input
          name="client_secret"
          type="password"
          autoComplete="current-password"
          value={secret}
          onInput={(e) => setSecret(e.currentTarget.value)}
          required
        />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <ProblemView problem={problem} />
    </form>
  );
}
