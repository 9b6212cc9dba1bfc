import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * The service's business metrics, written as CloudWatch embedded metric format (EMF) by
 * Powertools Metrics: one JSON line on standard output per event, which CloudWatch Logs turns
 * into a metric on Lambda (no PutMetricData call, no client in the bundle). Locally (`npm start`)
 * the same lines go to the process's output; tests silence them (POWERTOOLS_METRICS_DISABLED, in
 * vitest.config.ts). The alarms and the dashboard (infra/cdk/constructs/observability.ts) read
 * these names; docs/operations.md#metrics-alarms-and-the-dashboard lists them.
 *
 * Every metric has the dimension `service` (`screening`); screens add their `origin` and hits their
 * `risk_level`, nothing else: never a tenant or a screen id, since each distinct set of dimension
 * values is a metric CloudWatch bills for, and an alarm reads one exact set.
 */
export const METRICS_NAMESPACE = 'IndividualScreeningService';

/** The `service` dimension on every metric (Powertools' default dimension). */
export const METRICS_SERVICE = 'screening';

/** Every metric the service emits, by name. */
export const METRIC = {
  /** A screen made (not a cached answer): dimension `origin` (api, batch, rescreen). */
  screens: 'Screens',
  /** A screen with a match: dimension `risk_level` (LOW, MEDIUM, HIGH, CRITICAL). */
  hits: 'Hits',
  /** A re-screen of a monitored client that raised an alert. */
  alertsRaised: 'AlertsRaised',
  /** A list the sync could not fetch or parse (the last good copy stays; the list id is in the log line). */
  listSyncsFailed: 'ListSyncsFailed',
  /** A list file the sync held for review (a mass drop; the list id is in the log line). */
  listSyncsHeld: 'ListSyncsHeld',
  /** A webhook delivery attempt that failed or was refused (retried until the last, then dead-lettered). */
  webhookDeliveriesFailed: 'WebhookDeliveriesFailed',
  /** An endpoint marked failing after a dead-lettered delivery (or disabled after 72 hours of it). */
  webhookEndpointsFailing: 'WebhookEndpointsFailing',
  /** A request refused by the tenant's monthly quota (429). */
  quotaRefusals: 'QuotaRefusals',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** The Metrics instance whose single metrics every event uses (service dimension: `screening`). */
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });

/**
 * Emits one count at once (Powertools' single metric: its own EMF line, flushed when added), so
 * no handler has to flush at its end and a metric is never lost to a missing flush.
 */
export function countMetric(name: MetricName, dimensions: Record<string, string> = {}, value = 1): void {
  const single = metrics.singleMetric();
  for (const [dimension, dimensionValue] of Object.entries(dimensions)) {
    single.addDimension(dimension, dimensionValue);
  }
  single.addMetric(name, MetricUnit.Count, value);
}
