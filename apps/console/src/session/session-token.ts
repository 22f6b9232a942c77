/**
 * The signed-in API token. sessionStorage: it lives as long as the tab, is never sent anywhere but
 * in the Authorization header of API calls, and is never put in a URL or a cookie.
 */
const KEY = 'scrape-console.token';

export const sessionToken = {
  read(): string | null {
    return window.sessionStorage.getItem(KEY);
  },
  write(token: string): void {
    window.sessionStorage.setItem(KEY, token);
  },
  clear(): void {
    window.sessionStorage.removeItem(KEY);
  },
};
