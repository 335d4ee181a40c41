import { useState } from 'preact/hooks';
import { ApiError, describe } from './api';
import { fetchViewer, Viewer } from './admin-data';

/** Asks the API who the key is; a refused key is said plainly, and nothing is stored. */
export function SignIn({ onSignedIn }: { onSignedIn: (key: string, viewer: Viewer) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const viewer = await fetchViewer(key.trim());
      if (!viewer) throw new ApiError('The server has no API keys configured.', 'NO_KEYS');
      onSignedIn(key.trim(), viewer);
    } catch (e) {
      setError(
        e instanceof ApiError && e.code === 'UNAUTHENTICATED'
          ? `This key was refused: ${e.message}`
          : describe(e),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="sign-in" onSubmit={(e) => void submit(e)}>
      <h1>kgc review</h1>
      <label>
        API key{' '}
        <input
          name="apiKey"
          type="password"
          autoComplete="off"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          required
        />
      </label>
      <button type="submit" disabled={busy || key.trim() === ''}>
        Sign in
      </button>
      {error && (
        <p class="status error" role="alert">
          {error}
        </p>
      )}
      <p class="muted">
        The key stays in this tab (session storage) and is sent as a Bearer header; no cookies.
      </p>
    </form>
  );
}
