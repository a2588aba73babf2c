import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Api, asProblem, type Problem, type WebhookDelivery, type WebhookEndpoint } from '../api.ts';
import { useApiCall } from './api-call.ts';
import { ProblemView } from './problem-view.tsx';
import { TableHead } from './results-table.tsx';

/** The organization's webhook endpoints: create (the secret is shown once), enable, delete, deliveries, replay. */
export function Webhooks(props: { api: Api }) {
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const form = useApiCall();
  const [url, setUrl] = useState('');
  const [entities, setEntities] = useState('');

  useEffect(() => {
    props.api.conduit.webhookEndpoints.list().then(setEndpoints, (error) => setProblem(asProblem(error)));
  }, [tick]);

  const create = (event: Event) => {
    event.preventDefault();
    const names = entities
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    void form.run(async () => {
      const endpoint = await props.api.conduit.webhookEndpoints.create({
        url,
        ...(names.length ? { entities: names } : {}),
      });
      setCreated({ id: endpoint.id, secret: endpoint.secret });
      setUrl('');
      setEntities('');
      setTick(tick + 1);
    });
  };
  const act = (call: () => Promise<unknown>) =>
    call().then(
      () => setTick(tick + 1),
      (error) => setProblem(asProblem(error)),
    );

  return (
    <section data-testid="webhooks">
      <h2>Webhooks</h2>
      <p class="muted">
        Every change of your connectors' copies, signed (Standard Webhooks), retried for a day, in order per record.
      </p>
      <form class="inline" onSubmit={create} data-testid="webhook-create">
        <input
          placeholder="https://example.com/hooks"
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          name="url"
        />
        <input
          placeholder="entities (comma-separated, optional)"
          value={entities}
          onInput={(e) => setEntities((e.target as HTMLInputElement).value)}
          name="entities"
        />
        <button type="submit" disabled={form.busy}>
          Add endpoint
        </button>
      </form>
      <ProblemView
        problem={form.problem ?? problem}
        onDismiss={() => {
          form.setProblem(null);
          setProblem(null);
        }}
      />
      {created && (
        <p class="notice" data-testid="webhook-secret">
          Signing secret of {created.id} (shown once): <code>{created.secret}</code>
        </p>
      )}
      {endpoints === null ? (
        <p class="muted">Loading…</p>
      ) : endpoints.length === 0 ? (
        <p class="muted">No endpoints yet.</p>
      ) : (
        <table class="endpoints" data-testid="endpoints">
          <TableHead columns={['URL', 'Filters', 'State', '']} />
          <tbody>
            {endpoints.map((e) => (
              <Fragment key={e.id}>
                <tr data-endpoint={e.id}>
                  <td>{e.url}</td>
                  <td>{[e.entities?.join(', '), e.types?.join(', ')].filter(Boolean).join(' · ') || 'all changes'}</td>
                  <td>{e.enabled ? 'enabled' : `disabled${e.disabled_reason ? `: ${e.disabled_reason}` : ''}`}</td>
                  <td class="actions">
                    <button type="button" class="link" onClick={() => setOpen(open === e.id ? null : e.id)}>
                      deliveries
                    </button>
                    {!e.enabled && (
                      <button
                        type="button"
                        class="link"
                        onClick={() => act(() => props.api.conduit.webhookEndpoints.update(e.id, { enabled: true }))}
                      >
                        enable
                      </button>
                    )}
                    <button
                      type="button"
                      class="link danger"
                      onClick={() => act(() => props.api.conduit.webhookEndpoints.delete(e.id))}
                    >
                      delete
                    </button>
                  </td>
                </tr>
                {open === e.id && (
                  <tr>
                    <td colSpan={4}>
                      <Deliveries api={props.api} endpointId={e.id} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function lastAttempt(d: WebhookDelivery): string {
  const last = d.attempts.at(-1);
  if (!last) return '—';
  return `${last.http_status ?? last.error ?? '?'} · ${last.latency_ms} ms`;
}

function Deliveries(props: { api: Api; endpointId: string }) {
  const [deliveries, setDeliveries] = useState<WebhookDelivery[] | null>(null);
  const [after, setAfter] = useState('0');
  const [notice, setNotice] = useState<string | null>(null);
  const call = useApiCall();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    void call.run(async () =>
      setDeliveries(await props.api.conduit.webhookEndpoints.deliveries(props.endpointId, { limit: 20 })),
    );
  }, [props.endpointId, tick]);
  const replay = (event: Event) => {
    event.preventDefault();
    void call.run(async () => {
      const { connector_ids } = await props.api.conduit.webhookEndpoints.replay(props.endpointId, after);
      setNotice(`Replaying the changes after ${after} of ${connector_ids.length} connector(s).`);
      setTick(tick + 1);
    });
  };
  return (
    <div class="deliveries" data-testid="deliveries">
      <form class="inline" onSubmit={replay}>
        <label>
          Replay after cursor{' '}
          <input value={after} size={8} onInput={(e) => setAfter((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="secondary" disabled={call.busy} data-testid="replay">
          Replay
        </button>
        <button type="button" class="link" onClick={() => setTick(tick + 1)}>
          refresh
        </button>
      </form>
      {notice && <p class="notice">{notice}</p>}
      <ProblemView problem={call.problem} onDismiss={() => call.setProblem(null)} />
      {deliveries && deliveries.length === 0 && <p class="muted">No deliveries yet.</p>}
      {deliveries && deliveries.length > 0 && (
        <table>
          <TableHead columns={['webhook-id', 'Status', 'Attempts', 'Last answer', 'Created']} />
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.webhook_id} data-status={d.status}>
                <td>
                  <code>{d.webhook_id}</code>
                </td>
                <td>{d.status}</td>
                <td class="num">{d.attempts.length}</td>
                <td>{lastAttempt(d)}</td>
                <td>{new Date(d.created_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
