/**
 * The signed-in key. It lives in this tab's sessionStorage only (gone when the tab closes, never in
 * a URL, a cookie, localStorage or a log) and in memory. An identity provider would replace the
 * key with a token here and nowhere else (docs/console.md#signing-in-and-how-an-identity-provider-would-replace-the-key).
 */
const STORAGE = 'screening-console-key';

let key: string | null = sessionStorage.getItem(STORAGE);

export function currentKey(): string | null {
  return key;
}

export function signIn(newKey: string): void {
  key = newKey;
  sessionStorage.setItem(STORAGE, newKey);
}

export function signOut(): void {
  key = null;
  sessionStorage.removeItem(STORAGE);
}
