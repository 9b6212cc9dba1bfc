import { useState } from 'preact/hooks';
import { api, ok } from '../api.ts';
import { signIn, signOut } from '../session.ts';
import { ErrorNote } from '../ui.tsx';

/**
 * Sign-in with an API key. The key is checked with GET /me before it is kept; it is held in this
 * tab's sessionStorage only and the form never puts it in the URL (POST-less, no action).
 */
export function SignIn({ error, onSignedIn }: { error: Error | null; onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [failed, setFailed] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="sign-in">
      <h1>Screening console</h1>
      <p>Sign in with your API key. Your administrator issues it from the Users page.</p>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setFailed(null);
          signIn(key.trim());
          try {
            ok(await api.GET('/me'));
            setKey('');
            onSignedIn();
          } catch (caught) {
            signOut();
            setFailed(caught as Error);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorNote error={failed ?? error} />
    </main>
  );
}
