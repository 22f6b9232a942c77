import { useEffect, useState } from 'preact/hooks';

/** Hash routes (#/collections/…): the gateway serves one index.html, and a reload keeps the page. */
export function currentRoute(): string[] {
  return window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export function navigate(...parts: string[]): void {
  window.location.hash = `#/${parts.map(encodeURIComponent).join('/')}`;
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
