import { useEffect, useState } from 'preact/hooks';
import { describe } from './api';
import { fetchVersions, VersionView } from './admin-data';
import { SvgImage } from './svg-image';

const METRICS = ['mrr', 'mr', 'hits1', 'hits3', 'hits10'] as const;

/** The overall test metrics, wherever the job recorded them ({test: {overall}} or {overall}). */
function overall(metrics: Record<string, unknown> | null): Record<string, unknown> | null {
  const test = (metrics?.test ?? metrics) as Record<string, unknown> | null | undefined;
  const found = (test?.overall ?? test) as Record<string, unknown> | null | undefined;
  return found && typeof found.mrr === 'number' ? found : null;
}

function Version({ v }: { v: VersionView }) {
  const m = overall(v.metrics);
  return (
    <article class="version" data-testid="version">
      <h3>
        {v.version} <span class={`badge ${v.status}`}>{v.status}</span>
      </h3>
      <p class="muted">
        {v.createdAt} · {v.trigger} · {v.triples} edges, {v.entities} entities, {v.relations}{' '}
        relations
      </p>
      {m ? (
        <table class="metrics">
          <thead>
            <tr>
              {METRICS.map((name) => (
                <th key={name}>{name}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              {METRICS.map((name) => (
                <td key={name}>
                  {typeof m[name] === 'number'
                    ? (m[name] as number).toFixed(name === 'mr' ? 1 : 4)
                    : '–'}
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      ) : (
        <p class="muted">No test metrics (the held-out split was empty).</p>
      )}
      <div class="diagrams">
        {v.trainingCurveSvg ? (
          <SvgImage svg={v.trainingCurveSvg} alt={`training curve of ${v.version}`} />
        ) : (
          <p class="muted">No training curve (files pruned).</p>
        )}
        {v.reliabilitySvg ? (
          <SvgImage svg={v.reliabilitySvg} alt={`reliability diagram of ${v.version}`} />
        ) : (
          <p class="muted">No reliability diagram (no calibration).</p>
        )}
      </div>
    </article>
  );
}

export function Versions({ apiKey }: { apiKey: string }) {
  const [versions, setVersions] = useState<VersionView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    fetchVersions(apiKey).then(setVersions, (e: unknown) => setError(describe(e)));
  }, [apiKey]);
  if (error) return <p class="status error">{error}</p>;
  if (!versions) return <p class="muted">Loading…</p>;
  if (versions.length === 0) return <p class="muted">No model versions yet: train one.</p>;
  return (
    <section aria-label="model versions">
      {versions.map((v) => (
        <Version key={v.version} v={v} />
      ))}
    </section>
  );
}
