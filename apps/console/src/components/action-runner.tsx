import { useEffect, useState } from 'preact/hooks';
import type { DownloadedFile, EntityInfo, ExecuteResult } from '../api.ts';
import { useApiCall } from './api-call.ts';
import { JsonEditor, Picker } from './fields.tsx';
import { ConnectorAndEntityPickers, type ConnectorToolProps, useConnectorAndEntity } from './pickers.tsx';
import { ProblemView } from './problem-view.tsx';
import { ResultsTable } from './results-table.tsx';
import { type JsonSchema, jsonSchema } from './schema-form.tsx';

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

const hasActions = (entity: EntityInfo) => Object.keys(entity.params).length > 0;

/** Live actions (list, get, create, update, delete, download) against the upstream, with their params schema. */
export function ActionRunner(props: ConnectorToolProps) {
  const picked = useConnectorAndEntity(props, hasActions);
  const { connector, entity } = picked;
  const actions = Object.keys(entity?.params ?? {});
  const [actionName, setActionName] = useState('');
  const action = actions.includes(actionName) ? actionName : (actions[0] ?? '');
  const published = entity?.params[action];
  const schema = published ? jsonSchema(published) : undefined;
  const [raw, setRaw] = useState('{}');
  const { busy, problem, setProblem, run: call } = useApiCall();
  const [result, setResult] = useState<ExecuteResult | DownloadedFile | null>(null);

  useEffect(() => {
    setRaw(JSON.stringify(skeleton(schema), null, 2));
    setResult(null);
    setProblem(null);
  }, [picked.connectorId, entity?.name, action]);

  const run = async () => {
    if (!connector || !entity) return;
    let params: unknown;
    try {
      params = JSON.parse(raw);
    } catch (error) {
      setProblem({ title: 'The params are not JSON', status: 0, detail: String(error) });
      return;
    }
    await call(
      async () => setResult(await props.api.execute(connector, { entity: entity.name, action, params })),
      () => setResult(null),
    );
  };

  if (props.connectors.length === 0) return <p class="muted">Create a connector first.</p>;
  return (
    <section class="card" data-testid="actions">
      <h2>Live actions</h2>
      <div class="row">
        <ConnectorAndEntityPickers prefix="action" picked={picked} />
        <Picker
          label="Action"
          name="action_name"
          value={action}
          options={actions.map((a) => [a, a])}
          onChange={setActionName}
        />
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
      <JsonEditor label="Params (JSON)" name="action_json" rows={6} value={raw} onChange={setRaw} />
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
