import { ServiceStartingError } from './errors.ts';

/**
 * Whether this process can screen yet. A Lambda is ready from the start: it loads its watchlists
 * on its first screen, inside that request. The local server (`npm start`, infra/local/stack.ts)
 * listens at once but first compiles the snapshot (a fresh checkout) and indexes the lists; it
 * marks itself starting meanwhile, so /health says `starting` and what is loading, and a request
 * that needs the lists waits a bounded time for them instead of loading them itself (which held
 * the event loop for over a minute and ended in a 500).
 */

interface Starting {
  loading: string;
  since: number;
}

let starting: Starting | undefined;
const waiting = new Set<() => void>();

/** The process is starting; `loading` says what it is doing (shown by /health). */
export function markStarting(loading: string): void {
  starting = { loading, since: Date.now() };
}

/** What the starting process is doing now (no effect once it is ready). */
export function reportLoading(loading: string): void {
  if (starting) starting.loading = loading;
}

/** The process can serve every request; those waiting for it go on. */
export function markReady(): void {
  starting = undefined;
  for (const resume of waiting) resume();
  waiting.clear();
}

/** Undefined once ready; else what is loading and for how many whole seconds it has been starting. */
export function startingState(): { loading: string; seconds: number } | undefined {
  if (!starting) return undefined;
  return { loading: starting.loading, seconds: Math.floor((Date.now() - starting.since) / 1000) };
}

/** Seconds a client is told to wait before trying again (`Retry-After`). */
export const STARTING_RETRY_AFTER_SECONDS = 5;

/**
 * Resolves at once when the process is ready, else when it becomes ready within `maxWaitMs`;
 * past that, throws a 503 with `Retry-After` saying what is still loading.
 */
export async function whenReady(maxWaitMs: number): Promise<void> {
  if (!starting) return;
  let resume: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const ready = await new Promise<boolean>((settle) => {
    resume = () => settle(true);
    waiting.add(resume);
    timer = setTimeout(() => settle(false), maxWaitMs);
  });
  clearTimeout(timer);
  if (resume) waiting.delete(resume);
  if (ready) return;
  const state = startingState();
  if (!state) return; // ready in the same instant the wait ran out
  throw new ServiceStartingError(
    `The service is starting (${state.loading}); the watchlists are not loaded yet. Retry in ${STARTING_RETRY_AFTER_SECONDS} s.`,
    STARTING_RETRY_AFTER_SECONDS,
  );
}
