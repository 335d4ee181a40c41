import { useEffect, useState } from 'preact/hooks';
import { describe } from './api';
import { DecisionView, fetchDecisions } from './admin-data';

/** The decision log, newest first; `refresh` changes after each decision of this page. */
export function Decisions({ apiKey, refresh }: { apiKey: string; refresh: number }) {
  const [rows, setRows] = useState<DecisionView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    fetchDecisions(apiKey, 50).then(setRows, (e: unknown) => setError(describe(e)));
  }, [apiKey, refresh]);
  if (error) return <p class="status error">{error}</p>;
  if (!rows) return <p class="muted">Loading…</p>;
  if (rows.length === 0) return <p class="muted">No decisions yet.</p>;
  return (
    <table class="log" aria-label="decision log">
      <thead>
        <tr>
          <th>when</th>
          <th>decision</th>
          <th>edge</th>
          <th>probability</th>
          <th>by</th>
          <th>reason</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((d) => (
          <tr key={d.id} data-testid="decision">
            <td>{d.at}</td>
            <td>{d.kind}</td>
            <td>
              <code>
                {d.head} —{d.relation}→ {d.tail}
              </code>
            </td>
            <td>{d.probability === null ? '–' : `${(d.probability * 100).toFixed(1)}%`}</td>
            <td>{d.by}</td>
            <td>{d.reason ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
