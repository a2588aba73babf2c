import { useEffect, useState } from 'preact/hooks';
import {
  type Api,
  asProblem,
  type ConnectorView,
  type DownloadedFile,
  type ExecuteJson,
  type JsonSchema,
  type KindInfo,
  type Problem,
} from '../api.ts';
import { ConnectorSelect, EntitySelect } from './pickers.tsx';
import { ProblemView } from './problem-view.tsx';
import { ResultsTable } from './results-table.tsx';

/** A starting point for the params editor: the required params with a value of their type. */
function skeleton(schema: JsonSchema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of schema?.required ?? []) {
    const field = schema?.properties?.[key];
    const type = Array.isArray(field?.type) ? field?.type[0] : field?.type;
    out[key] =
      field?.enum?.[0] ??
      (type === 'integer' || type === 'number' ? 0 : type === 'boolean' ? false : type === 'object' ? {} : '');
  }
  return out;
}

/** Live actions (list, get, create, update, delete, download) against the upstream, with their params schema. */
export function ActionRunner(props: {
  api: Api;
  kinds: KindInfo[];
  connectors: ConnectorView[];
  initialConnector: string | null;
}) {
  const [connectorId, setConnectorId] = useState(props.initialConnector ?? props.connectors[0]?.connector_id ?? '');
  const connector = props.connectors.find((c) => c.connector_id === connectorId);
  const kind = props.kinds.find((k) => k.connector_type.toLowerCase() === connector?.connector_type.toLowerCase());
  const entities = kind?.entities.filter((e) => Object.keys(e.params).length > 0) ?? [];
  const [entityName, setEntityName] = useState('');
  const entity = entities.find((e) => e.name === entityName) ?? entities[0];
  const actions = Object.keys(entity?.params ?? {});
  const [actionName, setActionName] = useState('');
  const action = actions.includes(actionName) ? actionName : (actions[0] ?? '');
  const schema = entity?.params[action];
  const [raw, setRaw] = useState('{}');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [result, setResult] = useState<ExecuteJson | DownloadedFile | null>(null);

  useEffect(() => {
    setRaw(JSON.stringify(skeleton(schema), null, 2));
    setResult(null);
    setProblem(null);
  }, [connectorId, entity?.name, action]);

  const run = async () => {
    if (!connector || !entity) return;
    let params: unknown;
    try {
      params = JSON.parse(raw);
    } catch (error) {
      setProblem({ title: 'The params are not JSON', status: 0, detail: String(error) });
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      setResult(await props.api.execute(connector.connector_id, { entity: entity.name, action, params }));
    } catch (error) {
      setResult(null);
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  if (props.connectors.length === 0) return <p class="muted">Create a connector first.</p>;
  return (
    <section class="card" data-testid="actions">
      <h2>Live actions</h2>
      <div class="row">
        <ConnectorSelect
          name="action_connector"
          connectors={props.connectors}
          value={connectorId}
          onChange={setConnectorId}
        />
        <EntitySelect name="action_entity" entities={entities} value={entity?.name ?? ''} onChange={setEntityName} />
        <label>
          Action
          <select name="action_name" value={action} onChange={(e) => setActionName(e.currentTarget.value)}>
            {actions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
      </div>
      {schema?.properties && Object.keys(schema.properties).length > 0 && (
        <details>
          <summary>
            params of {entity?.name}.{action}
          </summary>
          <ul class="params-help">
            {Object.entries(schema.properties).map(([name, p]) => (
              <li key={name}>
                <code>{name}</code>
                {schema.required?.includes(name) ? ' (required)' : ''}{' '}
                {Array.isArray(p.type) ? p.type.join('|') : (p.type ?? '')}
                {p.enum ? `: ${p.enum.join(', ')}` : ''} {p.description ?? ''}
              </li>
            ))}
          </ul>
        </details>
      )}
      <label>
        Params (JSON)
        <textarea
          name="action_json"
          rows={6}
          class="code"
          value={raw}
          onInput={(e) => setRaw(e.currentTarget.value)}
          spellcheck={false}
        />
      </label>
      <div class="actions">
        <button type="button" onClick={() => void run()} disabled={busy} data-testid="run-action">
          {busy ? 'Running…' : `Run ${action}`}
        </button>
      </div>
      <ProblemView problem={problem} onDismiss={() => setProblem(null)} />
      {result && 'download' in result && (
        <p data-testid="action-result">
          {result.download.size.toLocaleString()} bytes of {result.download.contentType}{' '}
          <a href={result.download.url} download={result.download.filename ?? 'download'}>
            save {result.download.filename ?? 'file'}
          </a>
        </p>
      )}
      {result && !('download' in result) && (
        <div data-testid="action-result">
          {Array.isArray(result.data) ? <ResultsTable rows={result.data as Record<string, unknown>[]} /> : null}
          <pre class="json">{JSON.stringify(result, null, 2)}</pre>
        </div>
      )}
    </section>
  );
}
