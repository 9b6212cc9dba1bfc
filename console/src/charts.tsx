/**
 * The console's small charts, drawn as SVG by Preact itself. No chart library: the ones on offer
 * cost more than these three pictures are worth or break the console's rules (measured with
 * esbuild --minify, gzip -9, 2026-11-28): d3-scale 4.0.2 alone is 30.3 KB (11.9 KB gzipped, the
 * console was 19.3 KB); uPlot 1.6.32 is 52.5 KB (23.4 KB) and draws on a canvas, which a screen
 * reader cannot read; Chartist 1.5.0 is 23.1 KB (7.7 KB) and writes `style` attributes, which the
 * console's Content-Security-Policy (`style-src 'self'`) refuses. Every chart is beside its
 * numbers as text, so nothing is only a picture.
 */
import type { ComponentChildren } from 'preact';

export interface Bar {
  label: ComponentChildren;
  value: number;
  /** Where the bar turns bad (a list's age limit): drawn as a mark across the track. */
  limit?: number;
  /** The bar's text: the value as a person reads it. */
  text: string;
  tone?: 'bad' | 'good' | 'risk-critical' | 'risk-high' | 'risk-medium' | 'risk-low' | 'risk-clear';
}

/** Horizontal bars, one row each, on a common scale (the largest value or limit). */
export function BarChart({ title, bars }: { title: string; bars: Bar[] }) {
  const top = Math.max(1, ...bars.map((bar) => Math.max(bar.value, bar.limit ?? 0)));
  const at = (value: number) => Math.min(100, (Math.max(0, value) / top) * 100);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <ul class="bars">
        {bars.map((bar, i) => (
          <li key={i}>
            <span class="bar-label">{bar.label}</span>
            <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
              <rect class="track" x="0" y="1" width="100" height="8" />
              <rect class={`fill ${bar.tone ?? ''}`} x="0" y="1" width={at(bar.value)} height="8" />
              {bar.limit === undefined ? null : (
                <line class="limit" x1={at(bar.limit)} x2={at(bar.limit)} y1="0" y2="10" />
              )}
            </svg>
            <span class="bar-value">{bar.text}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}

export interface DayCounts {
  day: string;
  raised: number;
  decided: number;
}

/** Two bars a day (raised, decided) over consecutive days, with the numbers in a table beside it. */
export function DailyChart({ title, days }: { title: string; days: DayCounts[] }) {
  const width = 420;
  const height = 150;
  const base = height - 20;
  const top = Math.max(1, ...days.flatMap((d) => [d.raised, d.decided]));
  const slot = width / Math.max(days.length, 1);
  const bar = Math.max(2, slot / 2 - 2);
  const y = (n: number) => base - (n / top) * (base - 14);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg
        class="daily"
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${title}: ${days.reduce((n, d) => n + d.raised, 0)} raised, ${days.reduce((n, d) => n + d.decided, 0)} decided; the table below gives each day`}
      >
        <line class="axis" x1="0" x2={width} y1={base} y2={base} />
        <text x="2" y="10" class="tick">
          {top}
        </text>
        {days.map((d, i) => (
          <g key={d.day}>
            <rect class="raised" x={i * slot + 1} y={y(d.raised)} width={bar} height={base - y(d.raised)} />
            <rect
              class="decided"
              x={i * slot + 1 + bar}
              y={y(d.decided)}
              width={bar}
              height={base - y(d.decided)}
            />
            {i % Math.ceil(days.length / 7) === 0 ? (
              <text x={i * slot + 1} y={height - 4} class="tick">
                {d.day.slice(5)}
              </text>
            ) : null}
          </g>
        ))}
      </svg>
      <p class="legend">
        <span class="key raised" /> raised <span class="key decided" /> decided
      </p>
    </figure>
  );
}

/** The last `count` UTC days, oldest first, as YYYY-MM-DD. */
export function lastDays(count: number, now = new Date()): string[] {
  return Array.from({ length: count }, (_, i) =>
    new Date(now.getTime() - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}
