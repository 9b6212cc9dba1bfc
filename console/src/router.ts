import { useEffect, useState } from 'preact/hooks';

/** Paths under /console; a reload or a bookmarked page is served index.html (SPA fallback). */
export const BASE = '/console';

export function href(path: string): string {
  return `${BASE}${path}`;
}

export function navigate(path: string): void {
  history.pushState(null, '', href(path));
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The path after /console, e.g. `/screens/SCR-…`, with its query. */
export function useRoute(): { path: string; query: URLSearchParams } {
  const read = () => ({
    path: location.pathname.slice(BASE.length).replace(/\/$/, '') || '/',
    query: new URLSearchParams(location.search),
  });
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return route;
}

/** A same-origin link that navigates without a reload (and still works in a new tab). */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as HTMLElement).closest('a');
  if (!anchor || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  const url = new URL(anchor.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(BASE) || anchor.target) return;
  event.preventDefault();
  navigate(url.pathname.slice(BASE.length) + url.search);
}
