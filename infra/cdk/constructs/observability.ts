import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, METRICS_SERVICE, type MetricName } from '../../../lib/common/metrics.ts';
import { SCREEN_ORIGINS } from '../../../lib/screening/screen-origin.ts';

/** The risk levels a hit is counted under (lib/common/metrics.ts `Hits`; CLEAR is not a hit). */
const HIT_LEVELS = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;

/**
 * One of the service's business metrics (lib/common/metrics.ts) as CloudWatch files it: its
 * namespace, and exactly the dimensions Powertools Metrics writes (`service`, plus `origin` for
 * screens and `risk_level` for hits). An alarm or a graph with any other set reads nothing.
 */
export function serviceMetric(
  name: MetricName,
  dimensions: Record<string, string> = {},
  options: { period?: Duration; label?: string } = {},
): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: METRICS_SERVICE, ...dimensions },
    statistic: 'Sum',
    period: options.period ?? Duration.minutes(5),
    label: options.label,
  });
}

export interface ObservabilityProps {
  /** The HTTP API every buffered route is served by: its 5xx rate. */
  httpApi: HttpApi;
  /** The batch work queue's and the webhook delivery queue's dead-letter queues, graphed. */
  deadLetterQueues: { label: string; queue: IQueue }[];
}

/**
 * What operations watch (docs/operations.md#metrics-alarms-and-the-dashboard): the alarms on the
 * API's 5xx rate, on Lambda errors and throttles, on failed or held list syncs and on failing
 * webhook deliveries (beside the dead-letter alarms that the batch pipeline and the webhooks
 * construct keep next to their queues), and one dashboard: the API, the functions, the queues and
 * the business metrics the code emits.
 */
export class Observability extends Construct {
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const fiveMinutes = Duration.minutes(5);

    // The 5xx share of the API's requests; below 20 requests in 5 minutes a single error would
    // read as a rate of 5% or more, so quiet periods count as 0.
    const requests = props.httpApi.metricCount({ period: fiveMinutes, statistic: 'Sum' });
    const serverErrors = props.httpApi.metricServerError({ period: fiveMinutes, statistic: 'Sum' });
    const serverErrorRate = new MathExpression({
      expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      label: '5xx, % of requests',
      period: fiveMinutes,
    });
    this.alarm('Api5xxRate', {
      description: 'More than 1% of the HTTP API requests answered 5xx in each of three 5-minute periods',
      metric: serverErrorRate,
      threshold: 1,
      evaluationPeriods: 3,
      operator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    // Every function in the account and region (the service is meant to have its account): an
    // error here is an invocation that failed outright (a crash or a timeout), not a 4xx or a 500
    // the pipeline answered.
    const lambdaErrors = LambdaFunction.metricAllErrors({ period: fiveMinutes, statistic: 'Sum' });
    const lambdaThrottles = LambdaFunction.metricAllThrottles({ period: fiveMinutes, statistic: 'Sum' });
    this.alarm('LambdaErrors', {
      description: 'A Lambda invocation failed (uncaught error or timeout) in the last 5 minutes',
      metric: lambdaErrors,
      threshold: 1,
    });
    this.alarm('LambdaThrottles', {
      description: 'A Lambda invocation was throttled (reserved or account concurrency exhausted)',
      metric: lambdaThrottles,
      threshold: 1,
    });

    const hour = Duration.hours(1);
    this.alarm('ListSyncFailedOrHeld', {
      description:
        'A watchlist sync failed (the last good copy stays in force, marked stale) or was held for review (npm run admin -- sync-review)',
      metric: new MathExpression({
        expression: 'failed + held',
        usingMetrics: {
          failed: serviceMetric(METRIC.listSyncsFailed, {}, { period: hour }),
          held: serviceMetric(METRIC.listSyncsHeld, {}, { period: hour }),
        },
        label: 'list syncs failed or held',
        period: hour,
      }),
      threshold: 1,
    });
    this.alarm('WebhookDeliveriesFailing', {
      description:
        'At least 25 webhook delivery attempts failed in 15 minutes (each is retried; an endpoint down or refusing)',
      metric: serviceMetric(METRIC.webhookDeliveriesFailed, {}, { period: Duration.minutes(15) }),
      threshold: 25,
    });

    const stack = Stack.of(this);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${stack.stackName}-operations`,
      defaultInterval: Duration.hours(24),
    });
    const graph = (title: string, left: IMetric[], width = 8) =>
      new GraphWidget({ title, left, width, height: 6 });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          '## Individual Screening Service\nAlarms, the API, the functions and queues, and the business metrics (docs/operations.md, "Metrics, alarms and the dashboard").',
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      new AlarmStatusWidget({
        title: 'Alarms',
        alarms: stackAlarms(stack, this.alarms),
        width: 24,
        height: 4,
      }),
    );
    this.dashboard.addWidgets(
      graph('API requests and 5xx', [
        requests.with({ label: 'requests' }),
        serverErrors.with({ label: '5xx' }),
      ]),
      graph('API 5xx, % of requests', [serverErrorRate]),
      graph('API latency p99 (ms)', [props.httpApi.metricLatency({ period: fiveMinutes, statistic: 'p99' })]),
    );
    this.dashboard.addWidgets(
      graph('Lambda errors and throttles (all functions)', [
        lambdaErrors.with({ label: 'errors' }),
        lambdaThrottles.with({ label: 'throttles' }),
      ]),
      graph(
        'Dead-letter queues (messages)',
        props.deadLetterQueues.map(({ label, queue }) =>
          queue.metricApproximateNumberOfMessagesVisible({
            period: fiveMinutes,
            statistic: 'Maximum',
            label,
          }),
        ),
      ),
      graph('Quota refusals (429)', [serviceMetric(METRIC.quotaRefusals, {}, { label: 'refused' })]),
    );
    this.dashboard.addWidgets(
      graph(
        'Screens by origin',
        SCREEN_ORIGINS.map((origin) => serviceMetric(METRIC.screens, { origin }, { label: origin })),
      ),
      graph(
        'Hits by risk level',
        HIT_LEVELS.map((level) => serviceMetric(METRIC.hits, { risk_level: level }, { label: level })),
      ),
      graph('Monitoring alerts raised', [serviceMetric(METRIC.alertsRaised, {}, { label: 'alerts' })]),
    );
    this.dashboard.addWidgets(
      graph(
        'List syncs failed and held',
        [
          serviceMetric(METRIC.listSyncsFailed, {}, { period: hour, label: 'failed' }),
          serviceMetric(METRIC.listSyncsHeld, {}, { period: hour, label: 'held' }),
        ],
        12,
      ),
      graph(
        'Webhooks: failed attempts and failing endpoints',
        [
          serviceMetric(METRIC.webhookDeliveriesFailed, {}, { label: 'failed attempts' }),
          serviceMetric(METRIC.webhookEndpointsFailing, {}, { label: 'endpoints marked failing' }),
        ],
        12,
      ),
    );
  }

  private alarm(
    id: string,
    settings: {
      description: string;
      metric: IMetric;
      threshold: number;
      evaluationPeriods?: number;
      operator?: ComparisonOperator;
    },
  ): void {
    this.alarms.push(
      new Alarm(this, id, {
        alarmDescription: settings.description,
        metric: settings.metric,
        threshold: settings.threshold,
        evaluationPeriods: settings.evaluationPeriods ?? 1,
        comparisonOperator: settings.operator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // No data is a quiet period (no requests, no sync today, no webhook), not an outage.
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}

/** This construct's alarms and every other alarm of the stack (the dead-letter queues', the failing endpoints'). */
function stackAlarms(stack: Stack, own: readonly Alarm[]): Alarm[] {
  const others = stack.node.findAll().filter((c): c is Alarm => c instanceof Alarm && !own.includes(c));
  return [...own, ...others];
}
