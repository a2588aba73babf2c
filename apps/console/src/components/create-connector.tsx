import { useState } from 'preact/hooks';
import { type Api, asProblem, type KindInfo } from '../api.ts';
import { useApiCall } from './api-call.ts';
import { Picker, TextInput } from './fields.tsx';
import { ProblemView } from './problem-view.tsx';
import { type JsonSchema, jsonSchema, SchemaForm } from './schema-form.tsx';

type Obj = Record<string, unknown>;
/** One of the kind's published schemas as a fieldset: its legend, form name, schema, value and setter. */
type SchemaSection = readonly [legend: string, field: string, schema: JsonSchema, value: Obj, set: (v: Obj) => void];

function hasFields(document: KindInfo['config']): boolean {
  const schema = jsonSchema(document);
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
  const { busy, setBusy, problem, setProblem, run } = useApiCall();

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
    await run(async () => {
      const created = await props.api.createConnector({
        connector_type: kind.connector_type,
        customer_name: customer,
        name,
        credentials,
        replication_config: replication,
        ...(hasFields(kind.config) ? { config } : {}),
      });
      props.onCreated(created.connector_id);
    });
  };

  const consent = async () => {
    if (!kind) return;
    setBusy(true);
    setProblem(null);
    try {
      const redirect = new URL('/console/', window.location.origin).toString();
      const started = await props.api.conduit.connectors.oauthInitiate({
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
  const schemas: SchemaSection[] = [
    ['Credentials', 'credentials', jsonSchema(kind.credentials), credentials, setCredentials],
    ...(hasFields(kind.config)
      ? [['Configuration', 'config', jsonSchema(kind.config), config, setConfig] as const]
      : []),
    ['Replication', 'replication_config', jsonSchema(kind.replication_config), replication, setReplication],
  ];
  return (
    <form class="card create" onSubmit={submit} data-testid="create-form">
      <h2>New connector</h2>
      <Picker
        label="Kind"
        name="connector_type"
        value={kindName}
        options={props.kinds.map((k) => [k.connector_type, `${k.connector_type} (${k.purpose})`])}
        onChange={chooseKind}
      />
      <div class="row">
        <TextInput label="Customer" name="customer_name" value={customer} onChange={setCustomer} required />
        <TextInput label="Name" name="name" value={name} onChange={setName} required />
      </div>
      {schemas.map(([legend, field, schema, value, onChange]) => (
        <fieldset key={field}>
          <legend>{legend}</legend>
          <SchemaForm key={`${kindName}:${field}`} name={field} schema={schema} value={value} onChange={onChange} />
        </fieldset>
      ))}
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
