import { useEffect, useState } from 'preact/hooks';
import { describe } from './api';
import { fetchRelations, fetchViewer, RelationView, Viewer } from './admin-data';
import { Decisions } from './decisions';
import { Queue } from './queue';
import { forgetKey, storedKey, storeKey } from './session';
import { SignIn } from './sign-in';
import { Training } from './training';
import { Versions } from './versions';

type Tab = 'queue' | 'decisions' | 'versions' | 'training';
const TABS: { tab: Tab; label: string; adminOnly: boolean }[] = [
  { tab: 'queue', label: 'Queue', adminOnly: false },
  { tab: 'decisions', label: 'Decisions', adminOnly: true },
  { tab: 'versions', label: 'Model versions', adminOnly: false },
  { tab: 'training', label: 'Training runs', adminOnly: true },
];

function Workspace({
  apiKey,
  viewer,
  onSignOut,
}: {
  apiKey: string;
  viewer: Viewer;
  onSignOut: () => void;
}) {
  const admin = viewer.role === 'admin';
  const [tab, setTab] = useState<Tab>('queue');
  const [relations, setRelations] = useState<RelationView[] | null>(null);
  const [relation, setRelation] = useState('');
  const [decided, setDecided] = useState(0);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    fetchRelations(apiKey).then(
      (found) => {
        setRelations(found);
        setRelation((now) => now || (found.find((r) => r.inModel)?.name ?? ''));
      },
      (e: unknown) => setError(describe(e)),
    );
  }, [apiKey]);
  return (
    <div class="workspace">
      <header>
        <h1>kgc review</h1>
        <nav>
          {TABS.filter((t) => admin || !t.adminOnly).map((t) => (
            <button
              key={t.tab}
              class={tab === t.tab ? 'tab on' : 'tab'}
              onClick={() => setTab(t.tab)}
            >
              {t.label}
            </button>
          ))}
        </nav>
        <span class="who" data-testid="viewer">
          {viewer.name} ({viewer.role}
          {admin ? '' : ', read-only'})
        </span>
        <button onClick={onSignOut}>Sign out</button>
      </header>
      {error && <p class="status error">{error}</p>}
      {tab === 'queue' && (
        <>
          <label class="relation">
            Relation{' '}
            <select
              value={relation}
              onChange={(e) => setRelation((e.target as HTMLSelectElement).value)}
            >
              {(relations ?? []).map((r) => (
                <option key={r.name} value={r.name} disabled={!r.inModel}>
                  {r.name} ({r.edgeCount} edges{r.inModel ? '' : ', not in the model'})
                </option>
              ))}
            </select>
          </label>
          {relation && (
            <Queue
              key={relation}
              apiKey={apiKey}
              relation={relation}
              canDecide={admin}
              onDecided={() => setDecided((n) => n + 1)}
            />
          )}
        </>
      )}
      {tab === 'decisions' && <Decisions apiKey={apiKey} refresh={decided} />}
      {tab === 'versions' && <Versions apiKey={apiKey} />}
      {tab === 'training' && <Training apiKey={apiKey} canRetrain={admin} />}
    </div>
  );
}

/** Signed in with a key kept for this tab, or the sign-in form. */
export function App() {
  const [session, setSession] = useState<{ key: string; viewer: Viewer } | null>(null);
  const [checking, setChecking] = useState(storedKey() !== null);
  useEffect(() => {
    const key = storedKey();
    if (!key) return;
    fetchViewer(key)
      .then(
        (viewer) => viewer && setSession({ key, viewer }),
        () => forgetKey(),
      )
      .finally(() => setChecking(false));
  }, []);
  if (checking) return <p class="muted">Checking the key…</p>;
  if (!session) {
    return (
      <SignIn
        onSignedIn={(key, viewer) => {
          storeKey(key);
          setSession({ key, viewer });
        }}
      />
    );
  }
  return (
    <Workspace
      apiKey={session.key}
      viewer={session.viewer}
      onSignOut={() => {
        forgetKey();
        setSession(null);
      }}
    />
  );
}
