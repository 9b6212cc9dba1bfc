import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { RiskLevel } from './api.ts';

/** Loads `load()` on mount and when `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const run = useCallback(() => {
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => setState({ data, loading: false }),
      (error: Error) => setState({ error, loading: false }),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/** The API's `detail`, announced to screen readers. */
export function ErrorNote({ error }: { error?: Error | null }) {
  if (!error) return null;
  const code = (error as { code?: string }).code;
  return (
    <p class="error" role="alert">
      {error.message}
      {code ? <span class="code"> ({code})</span> : null}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Risk({ level }: { level: RiskLevel }) {
  return <span class={`risk risk-${level.toLowerCase()}`}>{level}</span>;
}

export function Page({ title, children }: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Screening console`;
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [title]);
  return (
    <>
      <h1 tabIndex={-1}>{title}</h1>
      {children}
    </>
  );
}

/** Runs an action, keeping its error (the API's detail) and whether it is running. */
export function useAction() {
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setError(null);
    setBusy(true);
    try {
      await action();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

/** Every destructive action asks first. */
export function confirmed(question: string): boolean {
  return window.confirm(question);
}

/**
 * A row's action: a button named for what it does to what (`label`, read by screen readers), which
 * asks `confirm` first when given and runs `act` through the page's `useAction`, so a refusal shows
 * as the API's detail on the page.
 */
export function ActionButton({
  action,
  label,
  confirm,
  danger,
  act,
  children,
}: {
  action: ReturnType<typeof useAction>;
  label: string;
  confirm?: string;
  danger?: boolean;
  act: () => Promise<void>;
  children: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class={danger ? 'danger' : undefined}
      aria-label={label}
      onClick={() => (confirm === undefined || confirmed(confirm)) && action.run(act)}
    >
      {children}
    </button>
  );
}

export function when(at: string | null | undefined): string {
  return at ? at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '—';
}

/**
 * A table that scrolls sideways inside its own frame, reachable by keyboard. On a narrow window
 * (style.css) each row becomes a card: every cell is labelled with its column's heading, copied
 * here into `data-label` after each render so no page has to repeat its headings.
 */
export function TableFrame({ label, children }: { label: string; children: ComponentChildren }) {
  const frame = useRef<HTMLElement>(null);
  useEffect(() => {
    for (const table of frame.current?.querySelectorAll('table') ?? []) {
      const headings = [...table.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? '');
      for (const row of table.querySelectorAll('tbody tr'))
        [...row.children].forEach((cell, i) => {
          if (headings[i]) cell.setAttribute('data-label', headings[i]);
        });
    }
  });
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so keyboard users can scroll it
    <section class="table-wrap" tabIndex={0} aria-label={label} ref={frame}>
      {children}
    </section>
  );
}

/** A table's column headings, each `scope="col"`. */
export function TableHead({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th scope="col" key={column}>
            {column}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** Cursor paging: forward by the API's `next_cursor`, back through the cursors already seen. */
export function useCursors() {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  return {
    cursor: cursors[cursors.length - 1],
    canGoBack: cursors.length > 1,
    back: () => setCursors(cursors.slice(0, -1)),
    forward: (next: string | null) => setCursors([...cursors, next]),
    reset: () => setCursors([null]),
  };
}

export function Pager({
  paging,
  next,
  labels = ['Previous page', 'Next page'],
}: {
  paging: ReturnType<typeof useCursors>;
  next: string | null;
  labels?: [string, string];
}) {
  return (
    <div class="pager">
      <button type="button" disabled={!paging.canGoBack} onClick={paging.back}>
        {labels[0]}
      </button>
      <button type="button" disabled={!next} onClick={() => paging.forward(next)}>
        {labels[1]}
      </button>
    </div>
  );
}
