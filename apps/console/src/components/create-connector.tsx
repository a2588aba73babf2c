import { useState } from 'preact/hooks';
import { type Api, asProblem, type KindInfo, type Problem } from '../api.ts';
import { ProblemView } from './problem-view.tsx';
import { SchemaForm } from './schema-form.tsx';

type Obj = Record<string, unknown>;

function hasFields(schema: KindInfo['config']): boolean {
  const options = schema.anyOf ?? [schema];
  return options.some((o) => Object.keys(o.properties ?? {}).length > 0);
}

/** A connector from the kind's published schemas; OAuth kinds can also go through the provider's consent. */
export function CreateConnector(props: { api: Api; kinds: KindInfo[]; onCreated: (id: string) => void }) {
  const [kindName, setKindName] = useState(props.kinds[0]?.connector_type ?? '');
  const kind = props.kinds.find((k) => k.connector_type === kindName);
  const [customer, setCustomer] = useState('');
  const [name, setName] = useState('');
  const [credentials, setCredentials] = useState<Obj>({});
  const [config, setConfig] = useState<Obj>({});
  const [replication, setReplication] = useState<Obj>({});
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);

  const chooseKind = (next: string) => {
    setKindName(next);
    setCredentials({});
    setConfig({});
    setReplication({});
    setProblem(null);
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!kind) return;
    setBusy(true);
    setProblem(null);
    try {
      const created = await props.api.createConnector({
        connector_type: kind.connector_type,
        customer_name: customer,
        name,
        credentials,
        replication_config: replication,
        ...(hasFields(kind.config) ? { config } : {}),
      });
      props.onCreated(created.connector_id);
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  const consent = async () => {
    if (!kind) return;
    setBusy(true);
    setProblem(null);
    try {
      const redirect = new URL('/console/', window.location.origin).toString();
      const started = await props.api.oauthInitiate({
        connector_type: kind.connector_type,
        customer_name: customer,
        name: name || undefined,
        redirect_url: redirect,
        ...(Object.keys(replication).length ? { replication_config: replication } : {}),
        ...(hasFields(kind.config) ? { config } : {}),
      });
      window.location.assign(started.consent_url);
    } catch (error) {
      setProblem(asProblem(error));
      setBusy(false);
    }
  };

  if (!kind) return <p class="muted">The catalog is empty.</p>;
  return (
    <form class="card create" onSubmit={submit} data-testid="create-form">
      <h2>New connector</h2>
      <label>
        Kind
        <select name="connector_type" value={kindName} onChange={(e) => chooseKind(e.currentTarget.value)}>
          {props.kinds.map((k) => (
            <option key={k.connector_type} value={k.connector_type}>
              {k.connector_type} ({k.purpose})
            </option>
          ))}
        </select>
      </label>
      <div class="row">
        <label>
          Customer
          <input name="customer_name" value={customer} onInput={(e) => setCustomer(e.currentTarget.value)} required />
        </label>
        <label>
          Name
          <input name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
        </label>
      </div>
      <fieldset>
        <legend>Credentials</legend>
        <SchemaForm
          key={`${kindName}:credentials`}
          name="credentials"
          schema={kind.credentials}
          value={credentials}
          onChange={setCredentials}
        />
      </fieldset>
      {hasFields(kind.config) && (
        <fieldset>
          <legend>Configuration</legend>
          <SchemaForm
            key={`${kindName}:config`}
            name="config"
            schema={kind.config}
            value={config}
            onChange={setConfig}
          />
        </fieldset>
      )}
      <fieldset>
        <legend>Replication</legend>
        <SchemaForm
          key={`${kindName}:replication`}
          name="replication_config"
          schema={kind.replication_config}
          value={replication}
          onChange={setReplication}
        />
      </fieldset>
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create connector'}
        </button>
        {kind.oauth && (
          <button type="button" class="secondary" disabled={busy} onClick={consent} data-testid="oauth-consent">
            Connect with {kind.connector_type} (OAuth consent)
          </button>
        )}
      </div>
      <ProblemView problem={problem} onDismiss={() => setProblem(null)} />
    </form>
  );
}
