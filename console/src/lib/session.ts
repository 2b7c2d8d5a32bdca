/**
 * The admin token lives in sessionStorage only: it is gone when the tab
 * closes, it is never written to localStorage, a cookie or the URL, and the
 * page never renders it.
 */
const KEY = 'rampart.console.adminToken';

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
