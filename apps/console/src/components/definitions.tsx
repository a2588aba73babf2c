import type { ConnectorDefinition, DefinitionTestResult } from '@conduit/client';
import { useEffect, useState } from 'preact/hooks';
import { type Api, asProblem, type Problem } from '../api.ts';
import { DefinitionEditor } from './definition-editor.tsx';
import { ProblemView } from './problem-view.tsx';
import { TableHead } from './results-table.tsx';

/** What a new definition starts from: the smallest kind worth editing (docs/definitions.md teaches the rest). */
const STARTER = `{
  "name": "My-Helpdesk",
  "base_url": "https://api.example.com/v1",
  "auth": {"type": "api_key", "in": "header", "name": "X-Api-Key"},
  "entities": {
    "tickets": {
      "key": "id",
      "fields": {"id": "string!", "subject": "string", "updated_at": "datetime"},
      "searchable": "all",
      "list": {"path": "/tickets", "records": "data",
               "paging": {"type": "cursor", "param": "cursor", "next_at": "meta.next_cursor"}},
      "replication": {"mode": "full_refresh"}
    }
  }
}
`;

function parsed(text: string): { value: Record<string, unknown> } | { problem: Problem } {
  try {
    return { value: JSON.parse(text) as Record<string, unknown> };
  } catch (error) {
    return { problem: { title: 'Not JSON', status: 0, detail: (error as Error).message } };
  }
}

/**
 * Connector kinds defined at run time (docs/definitions.md): the organization's kinds and their versions, an editor
 * checked against the format's JSON Schema as you type, then the API's own validation (every problem with its JSON
 * pointer), saving a version, a test against the upstream shown as tables, and activation of a version.
 */
export function Definitions({ api }: { api: Api }) {
  const [kinds, setKinds] = useState<ConnectorDefinition[]>([]);
  const [schema, setSchema] = useState<Record<string, unknown> | null>(null);
  const [text, setText] = useState(STARTER);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [credentials, setCredentials] = useState('{"api_key": ""}');
  const [pages, setPages] = useState(1);
  const [tested, setTested] = useState<DefinitionTestResult | null>(null);
  const [busy, setBusy] = useState(false);

  const refresh = () => api.conduit.definitions.list().then(setKinds, (e) => setProblem(asProblem(e)));
  useEffect(() => {
    void refresh();
    api.conduit.definitions.schema().then(setSchema, (e) => setProblem(asProblem(e)));
  }, []);

  const run = async (work: () => Promise<string | null>) => {
    setBusy(true);
    setProblem(null);
    setNotice(null);
    try {
      setNotice(await work());
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  const document = () => {
    const result = parsed(text);
    if ('problem' in result) throw Object.assign(new Error(result.problem.detail), { problem: result.problem });
    return result.value;
  };
  const name = () => String((parsed(text) as { value?: { name?: unknown } }).value?.name ?? '');

  const validate = () =>
    run(async () => {
      await api.conduit.definitions.validate(document());
      return 'The definition is valid.';
    });
  const save = () =>
    run(async () => {
      const saved = await api.conduit.definitions.create(document());
      await refresh();
      return `Saved ${saved.name}, version ${saved.version}.`;
    });
  const test = () =>
    run(async () => {
      const input = parsed(credentials);
      if ('problem' in input) throw Object.assign(new Error('credentials are not JSON'), { problem: input.problem });
      setTested(await api.conduit.definitions.test(name(), { credentials: input.value, max_pages: pages }));
      return null;
    });
  const activate = (kind: string, version: number) =>
    run(async () => {
      await api.conduit.definitions.activate(kind, version);
      await refresh();
      return `${kind} now uses version ${version}.`;
    });
  const open = (kind: string) =>
    run(async () => {
      const found = await api.conduit.definitions.get(kind);
      setText(`${JSON.stringify(found.definition ?? {}, null, 2)}\n`);
      return null;
    });

  return (
    <section class="definitions">
      <h2>Connector definitions</h2>
      <p class="muted">
        A kind the platform does not ship, as one JSON document: see <code>docs/definitions.md</code>. The editor checks
        the format as you type; Ctrl/Cmd-Enter validates with the API.
      </p>
      <table class="definition-list" data-testid="definition-list">
        <TableHead columns={['kind', 'active version', 'versions', '']} />
        <tbody>
          {kinds.map((kind) => (
            <tr key={kind.name}>
              <td>
                <button type="button" class="link" onClick={() => open(kind.name)}>
                  {kind.name}
                </button>
              </td>
              <td data-testid={`active-${kind.name}`}>{kind.active_version ?? '-'}</td>
              <td>
                {kind.versions.map((v) => (
                  <button
                    key={v.version}
                    type="button"
                    class={v.version === kind.active_version ? 'chip active' : 'chip'}
                    title={`created ${v.created_at}`}
                    onClick={() => activate(kind.name, v.version)}
                    disabled={busy || v.version === kind.active_version}
                  >
                    v{v.version}
                  </button>
                ))}
              </td>
              <td class="muted">{kind.versions.length} version(s)</td>
            </tr>
          ))}
        </tbody>
      </table>
      <DefinitionEditor value={text} schema={schema} onChange={setText} onValidate={validate} />
      <div class="row">
        <button type="button" onClick={validate} disabled={busy}>
          Validate
        </button>
        <button type="button" onClick={save} disabled={busy}>
          Save version
        </button>
      </div>
      <fieldset>
        <legend>Test against the upstream (writes nothing)</legend>
        <label>
          credentials (JSON)
          <input
            data-testid="test-credentials"
            value={credentials}
            onInput={(e) => setCredentials((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          pages
          <input
            type="number"
            min={1}
            max={5}
            value={pages}
            onInput={(e) => setPages(Number((e.target as HTMLInputElement).value))}
          />
        </label>
        <button type="button" onClick={test} disabled={busy}>
          Test
        </button>
      </fieldset>
      {notice && (
        <p class="notice" data-testid="definition-notice">
          {notice}
        </p>
      )}
      <ProblemView problem={problem} onDismiss={() => setProblem(null)} />
      {tested && <TestResults result={tested} />}
    </section>
  );
}

function TestResults({ result }: { result: DefinitionTestResult }) {
  return (
    <div data-testid="test-results">
      <table>
        <TableHead columns={['entity', 'records', 'pages', 'problems']} />
        <tbody>
          {result.entities.map((e) => (
            <tr key={e.entity}>
              <td>{e.entity}</td>
              <td>{e.record_count}</td>
              <td>{e.pages}</td>
              <td>{e.problems.length === 0 ? 'none' : e.problems.join('; ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table>
        <TableHead columns={['method', 'url', 'status', 'ms']} />
        <tbody>
          {result.requests.map((r, i) => (
            <tr key={`${i}:${r.url}`}>
              <td>{r.method}</td>
              <td>
                <code>{r.url}</code>
              </td>
              <td>{r.status ?? 'none'}</td>
              <td>{r.ms}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
