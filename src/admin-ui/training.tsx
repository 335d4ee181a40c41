import { useEffect, useState } from 'preact/hooks';
import { describe } from './api';
import { fetchRuns, requestRetraining, RunView } from './admin-data';

/** Polls faster while a run is going, so its progress moves on the page. */
const POLL_RUNNING_MS = 1000;
const POLL_IDLE_MS = 5000;

function Run({ run }: { run: RunView }) {
  const progress = run.epoch !== null && run.epochs ? run.epoch / run.epochs : null;
  return (
    <tr data-testid="training-run">
      <td>{run.startedAt}</td>
      <td>{run.trigger}</td>
      <td>
        {run.status}
        {run.phase ? ` (${run.phase})` : ''}
        {run.errorCode ? ` ${run.errorCode}` : ''}
      </td>
      <td>
        {progress !== null && (
          <progress max={1} value={progress} aria-label="epochs done">
            {Math.round(progress * 100)}%
          </progress>
        )}{' '}
        {run.epoch ?? '–'}/{run.epochs ?? '–'}
        {run.etaSeconds !== null && run.status === 'running'
          ? ` · ${Math.round(run.etaSeconds)} s left`
          : ''}
      </td>
      <td>{run.loss === null ? '–' : run.loss.toFixed(4)}</td>
      <td>{run.validMrr === null ? '–' : run.validMrr.toFixed(4)}</td>
      <td>
        {run.version ?? '–'}
        {run.promoted ? ' (promoted)' : ''}
      </td>
    </tr>
  );
}

export function Training({ apiKey, canRetrain }: { apiKey: string; canRetrain: boolean }) {
  const [runs, setRuns] = useState<RunView[] | null>(null);
  const [status, setStatus] = useState<{ text: string; error: boolean } | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const poll = async () => {
      let running = false;
      try {
        const got = await fetchRuns(apiKey);
        running = got.some((r) => r.status === 'running');
        if (!stopped) setRuns(got);
      } catch (e) {
        if (!stopped) setStatus({ text: describe(e), error: true });
      }
      if (!stopped) timer = setTimeout(poll, running ? POLL_RUNNING_MS : POLL_IDLE_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [apiKey]);
  const retrain = async () => {
    try {
      const at = await requestRetraining(apiKey);
      setStatus({ text: `Retraining requested at ${at}; the worker picks it up.`, error: false });
    } catch (e) {
      setStatus({ text: describe(e), error: true });
    }
  };
  return (
    <section aria-label="training runs">
      {canRetrain && <button onClick={() => void retrain()}>Request retraining</button>}
      {status && (
        <p class={status.error ? 'status error' : 'status'} role="status">
          {status.text}
        </p>
      )}
      {!runs ? (
        <p class="muted">Loading…</p>
      ) : runs.length === 0 ? (
        <p class="muted">No training runs yet.</p>
      ) : (
        <table class="log">
          <thead>
            <tr>
              <th>started</th>
              <th>trigger</th>
              <th>status</th>
              <th>progress</th>
              <th>loss</th>
              <th>valid MRR</th>
              <th>version</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <Run key={run.id} run={run} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
