import { useEffect, useState } from 'preact/hooks';
import { Api, asProblem, type ConnectorView, type KindInfo, type Problem } from './api.ts';
import { ActionRunner } from './components/action-runner.tsx';
import { Activity } from './components/activity.tsx';
import { Connectors } from './components/connectors.tsx';
import { CreateConnector } from './components/create-connector.tsx';
import { DefinitionsPage } from './components/definitions-page.tsx';
import { ProblemView } from './components/problem-view.tsx';
import { SearchPage } from './components/search-page.tsx';
import { SignIn } from './components/sign-in.tsx';
import { Webhooks } from './components/webhooks.tsx';

const TABS = [
  ['connectors', 'Connectors'],
  ['new', 'New connector'],
  ['search', 'Search'],
  ['actions', 'Live actions'],
  ['webhooks', 'Webhooks'],
  ['activity', 'Activity'],
  ['definitions', 'Definitions'],
] as const;
type Tab = (typeof TABS)[number][0];

function tabFromHash(): Tab {
  const name = window.location.hash.replace(/^#\/?/, '');
  return (TABS.find(([id]) => id === name)?.[0] ?? 'connectors') as Tab;
}

/** After the OAuth consent the API redirects back here with ?connector_id=… or ?error=…. */
function consentReturn(): { connectorId: string | null; error: string | null } {
  const query = new URLSearchParams(window.location.search);
  return { connectorId: query.get('connector_id'), error: query.get('error') };
}

const api = new Api();

/** The tabs that work on one connector picked among the organization's. */
const TOOLS: Partial<Record<Tab, typeof SearchPage>> = { search: SearchPage, actions: ActionRunner };

export function App() {
  const [signedIn, setSignedIn] = useState(api.signedIn);
  const [tab, setTab] = useState<Tab>(tabFromHash);
  const [kinds, setKinds] = useState<KindInfo[] | null>(null);
  const [connectors, setConnectors] = useState<ConnectorView[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    api.onUnauthorized = () => setSignedIn(false);
    const onHash = () => setTab(tabFromHash());
    window.addEventListener('hashchange', onHash);
    const back = consentReturn();
    if (back.connectorId) {
      setSelected(back.connectorId);
      setNotice('The provider granted access: the connector was created.');
    }
    if (back.error) setProblem({ title: 'The OAuth consent did not complete', status: 0, detail: back.error });
    if (back.connectorId || back.error)
      window.history.replaceState(null, '', window.location.pathname + window.location.hash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  // The catalog is read once signed in (every call of the client carries the token; this one does not need it).
  useEffect(() => {
    if (!signedIn || kinds) return;
    api.conduit.catalog().then(
      (c) => setKinds(c.kinds),
      (error) => setProblem(asProblem(error)),
    );
  }, [signedIn]);

  // Search and actions pick among the connectors; load them when those tabs open.
  useEffect(() => {
    if (!signedIn || (!TOOLS[tab] && tab !== 'activity')) return;
    api.conduit.connectors.list().then(setConnectors, (error) => setProblem(asProblem(error)));
  }, [signedIn, tab]);

  const go = (next: Tab) => {
    setNotice(null);
    window.location.hash = `#/${next}`;
    setTab(next);
  };

  const Tool = TOOLS[tab];
  if (!signedIn) {
    return (
      <main class="narrow">
        <SignIn api={api} onSignedIn={() => setSignedIn(true)} />
      </main>
    );
  }
  return (
    <>
      <header>
        <strong class="brand">Conduit</strong>
        <nav>
          {TABS.map(([id, label]) => (
            <a key={id} href={`#/${id}`} class={tab === id ? 'active' : ''} onClick={() => go(id)}>
              {label}
            </a>
          ))}
        </nav>
        <span class="spacer" />
        <a href="/docs" target="_blank" rel="noreferrer">
          API reference
        </a>
        <button
          type="button"
          class="link"
          onClick={() => {
            api.signOut();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        {notice && (
          <p class="notice" data-testid="notice">
            {notice}
          </p>
        )}
        <ProblemView problem={problem} onDismiss={() => setProblem(null)} />
        {tab === 'connectors' && <Connectors api={api} selected={selected} onSelect={setSelected} />}
        {tab === 'webhooks' && <Webhooks api={api} />}
        {tab === 'definitions' && <DefinitionsPage api={api} />}
        {tab === 'new' &&
          (kinds ? (
            <CreateConnector
              api={api}
              kinds={kinds}
              onCreated={(id) => {
                setSelected(id);
                go('connectors');
                setNotice('Connector created: its first sync is running.');
              }}
            />
          ) : (
            <p class="muted">Loading the catalog…</p>
          ))}
        {tab === 'activity' && <Activity api={api} connectors={connectors} />}
        {Tool && kinds && (
          <Tool key={connectors.length} api={api} kinds={kinds} connectors={connectors} initialConnector={selected} />
        )}
      </main>
    </>
  );
}
