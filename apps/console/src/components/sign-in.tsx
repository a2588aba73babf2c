import { useState } from 'preact/hooks';
import type { Api } from '../api.ts';
import { useApiCall } from './api-call.ts';
import { TextInput } from './fields.tsx';
import { ProblemView } from './problem-view.tsx';

/** Client id and secret → a bearer token (client-credentials grant). The secret is never stored. */
export function SignIn({ api, onSignedIn }: { api: Api; onSignedIn: () => void }) {
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const { busy, problem, run } = useApiCall();

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      await api.signIn(clientId.trim(), secret);
      setSecret('');
      onSignedIn();
    });
  };

  return (
    <form class="card sign-in" onSubmit={submit}>
      <h1>Conduit console</h1>
      <p class="muted">Sign in with an API client’s id and secret.</p>
      <TextInput
        label="Client id"
        name="client_id"
        autoComplete="username"
        value={clientId}
        onChange={setClientId}
        required
      />
      <TextInput
        label="Client secret"
        name="client_secret"
        type="password"
        autoComplete="current-password"
        value={secret}
        onChange={setSecret}
        required
      />
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <ProblemView problem={problem} />
    </form>
  );
}
