import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Policy } from 'aws-cdk-lib/aws-iam';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPIRY_ATTRIBUTE, EXPIRY_WRITE_ACTIONS } from '../../infra/cdk/constructs/expiry-permission.ts';
import { ServiceFunction } from '../../infra/cdk/constructs/service-function.ts';
import { METRIC, METRICS_NAMESPACE, METRICS_SERVICE } from '../../lib/common/metrics.ts';
import {
  buildStack,
  deployedRoutes,
  type Resource,
  repoRoot,
  resourcesOf,
  type Statement,
  synthDeployedStack,
} from '../support/cdk-stack.ts';

/** The CDK stack as operations see it: its alarms and its dashboard; and who may set the TTL attribute. */

let fixture: string;
// Synthesising the whole stack takes minutes on a busy 2-core machine.
const SYNTH_TIMEOUT_MS = 600_000;
beforeAll(() => {
  fixture = synthDeployedStack().root;
}, SYNTH_TIMEOUT_MS);
afterAll(() => rmSync(fixture, { recursive: true, force: true }));

type MetricStat = {
  Namespace: string;
  MetricName: string;
  Dimensions?: { Name: string; Value: unknown }[];
};
type AlarmMetric = { Id: string; Expression?: string; MetricStat?: { Metric: MetricStat } };

/** The alarm whose logical id starts with `id` (a construct id of infra/cdk/constructs/observability.ts). */
function alarm(id: string): Resource {
  const found = resourcesOf('AWS::CloudWatch::Alarm').filter(([logicalId]) => logicalId.startsWith(id));
  expect(found, id).toHaveLength(1);
  return found[0][1];
}

/** The metrics an alarm reads: its one metric, or each metric of its expression. */
function metricsOf(alarmResource: Resource): MetricStat[] {
  const p = alarmResource.Properties;
  if (p.MetricName) return [p as unknown as MetricStat];
  return (p.Metrics as AlarmMetric[]).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []));
}

/** Exactly the dimensions Powertools Metrics writes for the service's business metrics. */
const serviceDimension = [{ Name: 'service', Value: METRICS_SERVICE }];

describe('alarms', () => {
  it('alarms on the HTTP API 5xx rate, as a share of its requests', () => {
    const api5xx = alarm('ObservabilityApi5xxRate');
    const metrics = api5xx.Properties.Metrics as AlarmMetric[];
    expect(metrics.find((m) => m.Expression)?.Expression).toBe(
      'IF(requests >= 20, 100 * errors / requests, 0)',
    );
    expect(metricsOf(api5xx).map((m) => [m.Namespace, m.MetricName])).toEqual(
      expect.arrayContaining([
        ['AWS/ApiGateway', 'Count'],
        ['AWS/ApiGateway', '5xx'],
      ]),
    );
    for (const m of metricsOf(api5xx)) expect(m.Dimensions?.map((d) => d.Name)).toEqual(['ApiId']);
    expect(api5xx.Properties).toMatchObject({ Threshold: 1, EvaluationPeriods: 3 });
  });

  it('alarms on Lambda errors and throttles', () => {
    expect(alarm('ObservabilityLambdaErrors').Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(alarm('ObservabilityLambdaThrottles').Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Throttles',
    });
  });

  it('alarms on the depth of both dead-letter queues', () => {
    for (const id of ['BatchDeadLetterAlarm', 'WebhooksDeadLetterAlarm']) {
      const dlq = alarm(id);
      expect(dlq.Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 0,
      });
      const queue = (dlq.Properties.Dimensions as { Value: { 'Fn::GetAtt': string[] } }[])[0].Value;
      expect(queue['Fn::GetAtt'][0]).toMatch(/DeadLetterQueue/);
    }
  });

  it('alarms on failed or held list syncs and failing webhook deliveries, reading the metrics the code emits', () => {
    const syncs = alarm('ObservabilityListSyncFailedOrHeld');
    expect(metricsOf(syncs)).toEqual([
      { Namespace: METRICS_NAMESPACE, MetricName: METRIC.listSyncsFailed, Dimensions: serviceDimension },
      { Namespace: METRICS_NAMESPACE, MetricName: METRIC.listSyncsHeld, Dimensions: serviceDimension },
    ]);
    expect(alarm('ObservabilityWebhookDeliveriesFailing').Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.webhookDeliveriesFailed,
      Dimensions: serviceDimension,
      Period: 900,
      Threshold: 25,
    });
    expect(alarm('WebhooksFailingEndpointsAlarm').Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.webhookEndpointsFailing,
      Dimensions: serviceDimension,
    });
  });

  it('treats a quiet period (no data) as not breaching, on every alarm', () => {
    const alarms = resourcesOf('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThanOrEqual(8);
    for (const [id, a] of alarms) expect(a.Properties.TreatMissingData, id).toBe('notBreaching');
  });
});

describe('the dashboard', () => {
  it('is one dashboard graphing the API, the functions, both dead-letter queues and every business metric, with every alarm', () => {
    const dashboards = resourcesOf('AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0][1].Properties.DashboardBody);
    for (const name of Object.values(METRIC)) expect(body, name).toContain(`\\"${name}\\"`);
    expect(body).toContain(METRICS_NAMESPACE);
    for (const shown of [
      'AWS/ApiGateway',
      '5xx',
      'AWS/Lambda',
      'Throttles',
      'ApproximateNumberOfMessagesVisible',
    ])
      expect(body, shown).toContain(shown);
    for (const level of ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'])
      expect(body).toContain(`\\"risk_level\\",\\"${level}\\"`);
    // The alarm panel names every alarm of the stack.
    for (const [id] of resourcesOf('AWS::CloudWatch::Alarm')) expect(body, id).toContain(id);
  });
});

/**
 * The keepers of the kinds that expire (lib/store/schema.ts): the only modules that write
 * `expires_at`. A function whose code reaches none of them has no reason to set it.
 */
const EXPIRING_KIND_KEEPERS = [
  'lib/http/idempotency-table.ts', // idempotency-key
  'lib/batch/batch-table.ts', // batch, batch-item, open-batch
  'lib/batch/batch-record.ts', // a batch's or run's records when it starts
  'lib/monitoring/run-table.ts', // rescreen-change, running-run
];

describe('the TTL attribute (expires_at)', () => {
  it('is written only by the keepers of the kinds that expire; other modules only read it, or name a field of their own', () => {
    const naming = execFileSync('git', ['grep', '--untracked', '-lw', EXPIRY_ATTRIBUTE, '--', 'lib'], {
      cwd: repoRoot,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .sort();
    expect(naming).toEqual(
      [
        ...EXPIRING_KIND_KEEPERS,
        'lib/store/schema.ts', // declares it the table's TTL attribute
        'lib/batch/resume.ts', // reads an open batch's expiry
        'lib/monitoring/rescreen-client.ts', // hands a run's expiry to run-table.ts
        // A webhook endpoint's signing secrets each carry their own `expires_at` (an ISO time
        // inside the `secrets` list), not the item's TTL attribute: nothing expires the endpoint.
        'lib/webhooks/endpoints.ts',
        'lib/webhooks/webhook-table.ts',
      ].sort(),
    );
  });

  it(
    'is denied, whatever else is granted, to every function whose code writes no expiring kind, and only to those',
    async () => {
      const stack = buildStack(deployedRoutes, fixture);
      const functions = stack.node
        .findAll()
        .filter((c): c is ServiceFunction => c instanceof ServiceFunction);
      expect(functions.length).toBeGreaterThan(40);
      const denied = new Set<string>();
      const writesTable = new Set<string>();
      for (const fn of functions) {
        const policy = fn.function.role?.node.tryFindChild('DefaultPolicy') as Policy | undefined;
        const statements =
          (stack.resolve(policy?.document.toJSON()) as { Statement: Statement[] } | undefined)?.Statement ??
          [];
        const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
        if (
          statements.some(
            (s) => s.Effect === 'Allow' && actions(s).some((a) => EXPIRY_WRITE_ACTIONS.includes(a)),
          )
        )
          writesTable.add(fn.entry);
        const deny = statements.filter((s) => s.Effect === 'Deny');
        if (deny.length === 0) continue;
        expect(deny, fn.entry).toEqual([
          {
            Effect: 'Deny',
            Action: EXPIRY_WRITE_ACTIONS,
            Resource: { 'Fn::GetAtt': [expect.stringMatching(/^ScreeningTable/), 'Arn'] },
            Condition: { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': [EXPIRY_ATTRIBUTE] } },
          },
        ]);
        denied.add(fn.entry);
      }

      // Every route that authenticates a key still counts as able to set it (entriesSettingExpiry):
      // its request pipeline wrote a TTL'd request window until the token bucket (one `RATE` item,
      // no TTL) replaced it. Narrowing the grant to the routes that reach a keeper is left to do.
      const pipeline = 'lib/tenancy/fair-use-table.ts';
      // What each function's code can reach, as esbuild bundles it (packages left out: lib/ is what matters).
      const reaching = new Map<string, boolean>();
      for (const entry of new Set(functions.map((fn) => fn.entry))) {
        const result = await build({
          entryPoints: [path.join(repoRoot, entry)],
          absWorkingDir: repoRoot,
          bundle: true,
          platform: 'node',
          format: 'esm',
          packages: 'external',
          write: false,
          metafile: true,
          logLevel: 'silent',
          define: { SERVICE_BUNDLES_WATCHLISTS: 'true' },
        });
        const inputs = Object.keys(result.metafile.inputs);
        reaching.set(
          entry,
          [...EXPIRING_KIND_KEEPERS, pipeline].some((keeper) => inputs.includes(keeper)),
        );
      }
      // A function that may write the table is denied exactly when its code reaches no keeper (so
      // the deny never refuses a write it makes); one that may not write it is denied too.
      for (const [entry, writesExpiring] of reaching) {
        expect(denied.has(entry), entry).toBe(!writesTable.has(entry) || !writesExpiring);
      }
      // Those it names today: the webhook delivery and drain and the retention purge (the
      // origin secret's rotation, the fallback and the public pages have no table access at all).
      expect(denied).toEqual(
        new Set([
          'functions/queue/webhook-delivery.ts',
          'functions/schedule/webhook-drain.ts',
          'functions/schedule/retention-purge.ts',
          'functions/rotation/origin-secret.ts',
          'functions/http/health.ts',
          'functions/http/openapi.ts',
          'functions/http/reference-page.ts',
          'functions/http/reference-asset.ts',
          'functions/http/fallback.ts',
          'functions/table-stream/audit-chain.ts',
        ]),
      );
    },
    SYNTH_TIMEOUT_MS,
  );
});
