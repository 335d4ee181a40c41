/** The API key lives in sessionStorage: gone when the tab closes, never in a cookie. */
const KEY = 'kgc.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
}
