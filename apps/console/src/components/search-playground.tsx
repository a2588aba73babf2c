import { useEffect, useState } from 'preact/hooks';
import type { EntityInfo, SearchAnswer, SearchableField } from '../api.ts';
import { useApiCall } from './api-call.ts';
import { JsonEditor } from './fields.tsx';
import { Pager } from './pager.tsx';
import { ConnectorAndEntityPickers, type ConnectorToolProps, useConnectorAndEntity } from './pickers.tsx';
import { ProblemView } from './problem-view.tsx';
import { ResultsTable } from './results-table.tsx';

const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'like', 'fuzzy', 'keyword', 'contains'] as const;
type Operator = (typeof OPERATORS)[number];

interface Condition {
  id: number;
  field: string;
  op: Operator;
  value: string;
}

/** A typed value from what was typed: numbers for numeric fields, booleans for boolean ones, lists for `in`. */
function typed(field: SearchableField | undefined, op: Operator, text: string): unknown {
  const one = (raw: string): unknown => {
    const t = raw.trim();
    if (field?.type === 'integer' || field?.type === 'number')
      return t === '' || Number.isNaN(Number(t)) ? t : Number(t);
    if (field?.type === 'boolean') return t === 'true' ? true : t === 'false' ? false : t;
    return t;
  };
  if (op === 'in') return text.split(',').map(one);
  return one(text);
}

function buildParams(
  conditions: Condition[],
  fields: SearchableField[],
  sort: { field: string; dir: string },
  limit: number,
  countBy: string,
  meaning: string,
) {
  const clauses = conditions
    .filter((c) => c.field)
    .map((c) => ({
      [c.op]: {
        [c.field]: typed(
          fields.find((f) => f.path === c.field),
          c.op,
          c.value,
        ),
      },
    }));
  const query: Record<string, unknown> = {};
  if (clauses.length === 1) query.filter = clauses[0];
  if (clauses.length > 1) query.filter = { and: clauses };
  // Search by meaning (docs/search.md) ranks the records itself: no sort and no aggregation go with it.
  if (meaning.trim()) query.semantic = { text: meaning.trim() };
  else if (sort.field) query.sort = [{ [sort.field]: sort.dir }];
  // Dashboards (docs/search.md): counts per value of a field over the records that match the filter.
  const aggregate =
    countBy && !meaning.trim() ? { aggregate: { [`by_${countBy}`]: { count_by: countBy, size: 20 } } } : {};
  return { query, limit, ...aggregate };
}

const searchable = (entity: EntityInfo) => entity.actions.includes('search');

/**
 * Search over the synchronized copy: a filter builder whose fields come from the catalog, the raw JSON it
 * produces (editable: it is what runs), a results table with cursor paging and the engine's took_ms.
 */
export function SearchPlayground(props: ConnectorToolProps) {
  const picked = useConnectorAndEntity(props, searchable);
  const { connector, entity } = picked;
  const fields = entity?.searchable ?? [];

  const [conditions, setConditions] = useState<Condition[]>([]);
  const [sort, setSort] = useState({ field: '', dir: 'asc' });
  const [countBy, setCountBy] = useState('');
  const [meaning, setMeaning] = useState('');
  const [limit, setLimit] = useState(25);
  const [raw, setRaw] = useState('');
  const [rawProblem, setRawProblem] = useState<string | null>(null);
  const { busy, problem, setProblem, run: call } = useApiCall();
  const [result, setResult] = useState<SearchAnswer | null>(null);
  const [pages, setPages] = useState<(string | null)[]>([null]);
  const [pageIndex, setPageIndex] = useState(0);

  // The builder writes the raw JSON; editing the JSON by hand is allowed, and the JSON is what runs.
  useEffect(() => {
    setRaw(JSON.stringify(buildParams(conditions, fields, sort, limit, countBy, meaning), null, 2));
  }, [conditions, sort, limit, fields, countBy, meaning]);

  useEffect(() => {
    setConditions([]);
    setSort({ field: '', dir: 'asc' });
    setCountBy('');
    setMeaning('');
    setResult(null);
    setProblem(null);
    setPages([null]);
    setPageIndex(0);
  }, [picked.connectorId, entity?.name]);

  const run = async (cursor: string | null, pageIndex: number) => {
    if (!connector || !entity) return;
    let params: Record<string, unknown>;
    try {
      params = JSON.parse(raw) as Record<string, unknown>;
      setRawProblem(null);
    } catch (error) {
      setRawProblem(`The JSON does not parse: ${String(error)}`);
      return;
    }
    await call(
      async () => {
        const answer = await props.api.execute(connector, {
          entity: entity.name,
          action: 'search',
          params: cursor ? { ...params, cursor } : params,
        });
        setResult(answer);
        const next = answer.meta.has_more ? answer.meta.cursor : null;
        setPages((list) => [...list.slice(0, pageIndex + 1), ...(next ? [next] : [])]);
        setPageIndex(pageIndex);
      },
      () => setResult(null),
    );
  };

  if (props.connectors.length === 0) return <p class="muted">Create a connector first.</p>;
  const update = (id: number, patch: Partial<Condition>) =>
    setConditions((list) => list.map((c) => (c.id === id ? { ...c, ...patch } : c)));
  const total = result?.meta.total;
  const aggregations = result?.meta.aggregations;

  return (
    <section class="card" data-testid="search">
      <h2>Search playground</h2>
      <div class="row">
        <ConnectorAndEntityPickers prefix="search" picked={picked} />
        <label>
          Limit
          <input
            type="number"
            name="search_limit"
            min={1}
            max={10000}
            value={limit}
            onInput={(e) => setLimit(Number(e.currentTarget.value) || 1)}
          />
        </label>
      </div>

      <div class="builder" data-testid="filter-builder">
        <h3>Filter</h3>
        {conditions.map((c) => {
          const field = fields.find((f) => f.path === c.field);
          return (
            <div class="row condition" key={c.id}>
              <select
                aria-label="field"
                name="filter_field"
                value={c.field}
                onChange={(e) => update(c.id, { field: e.currentTarget.value })}
              >
                {fields.map((f) => (
                  <option key={f.path} value={f.path}>
                    {f.path} ({f.type})
                  </option>
                ))}
              </select>
              <select
                aria-label="operator"
                name="filter_op"
                value={c.op}
                onChange={(e) => update(c.id, { op: e.currentTarget.value as Operator })}
              >
                {OPERATORS.map((op) => (
                  <option key={op} value={op}>
                    {op}
                  </option>
                ))}
              </select>
              {field?.enum && c.op !== 'in' ? (
                <select
                  aria-label="value"
                  name="filter_value"
                  value={c.value}
                  onChange={(e) => update(c.id, { value: e.currentTarget.value })}
                >
                  <option value="">—</option>
                  {field.enum.map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  aria-label="value"
                  name="filter_value"
                  placeholder={
                    c.op === 'in' ? 'a, b, c' : field?.type === 'datetime' ? '2024-01-01T00:00:00Z' : 'value'
                  }
                  value={c.value}
                  onInput={(e) => update(c.id, { value: e.currentTarget.value })}
                />
              )}
              <button
                type="button"
                class="link"
                onClick={() => setConditions((list) => list.filter((x) => x.id !== c.id))}
              >
                remove
              </button>
            </div>
          );
        })}
        <div class="row">
          <button
            type="button"
            class="secondary"
            disabled={fields.length === 0}
            onClick={() =>
              setConditions((list) => [...list, { id: Date.now(), field: fields[0]?.path ?? '', op: 'eq', value: '' }])
            }
          >
            + condition
          </button>
          <label class="inline">
            Meaning
            <input
              type="search"
              name="search_meaning"
              placeholder="what the records are about, in words"
              value={meaning}
              onInput={(e) => setMeaning(e.currentTarget.value)}
            />
          </label>
          <label class="inline">
            Sort
            <select
              name="sort_field"
              value={sort.field}
              onChange={(e) => setSort({ ...sort, field: e.currentTarget.value })}
            >
              <option value="">(record key)</option>
              {fields.map((f) => (
                <option key={f.path} value={f.path}>
                  {f.path}
                </option>
              ))}
            </select>
            <select name="sort_dir" value={sort.dir} onChange={(e) => setSort({ ...sort, dir: e.currentTarget.value })}>
              <option value="asc">asc</option>
              <option value="desc">desc</option>
            </select>
          </label>
          <label class="inline">
            Count by
            <select name="count_by" value={countBy} onChange={(e) => setCountBy(e.currentTarget.value)}>
              <option value="">(none)</option>
              {fields
                .filter((f) => f.type !== 'object' && f.type !== 'array')
                .map((f) => (
                  <option key={f.path} value={f.path}>
                    {f.path}
                  </option>
                ))}
            </select>
          </label>
        </div>
      </div>

      <JsonEditor label="Params (JSON; this is what runs)" name="search_json" rows={8} value={raw} onChange={setRaw} />
      {rawProblem && <p class="error-text">{rawProblem}</p>}
      <div class="actions">
        <button type="button" onClick={() => void run(null, 0)} disabled={busy} data-testid="run-search">
          {busy ? 'Searching…' : 'Search'}
        </button>
        <Pager
          state={{ pages, pageIndex, busy, run }}
          labels={['← Previous', 'Next →']}
          nextTestId="next-page"
          secondary
        />
      </div>
      <ProblemView problem={problem} onDismiss={() => setProblem(null)} />
      {result && (
        <div data-testid="search-results">
          <p class="muted">
            page {pageIndex + 1} · {Array.isArray(result.data) ? result.data.length : 0} rows
            {total ? ` of ${total.exact ? '' : '≥ '}${total.value}` : ''} · took_ms{' '}
            <span data-testid="took-ms">{String(result.meta?.took_ms ?? '—')}</span>
            {result.meta?.has_more ? ' · more' : ''}
          </p>
          <ResultsTable
            rows={Array.isArray(result.data) ? (result.data as Record<string, unknown>[]) : []}
            keyField={entity?.record_key}
          />
          {aggregations && (
            <div class="aggregations" data-testid="aggregations">
              <h3>Aggregations</h3>
              {Object.entries(aggregations).map(([name, value]) => (
                <div key={name}>
                  <strong>{name}</strong>
                  {Array.isArray(value) ? (
                    <ResultsTable rows={value as Record<string, unknown>[]} />
                  ) : (
                    <pre>{JSON.stringify(value)}</pre>
                  )}
                </div>
              ))}
            </div>
          )}
        </div>
      )}
    </section>
  );
}
