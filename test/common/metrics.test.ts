import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  type MockInstance,
  vi,
} from 'vitest';
import { readConfig } from '../../lib/common/config.ts';
import { NotFoundError, QuotaExceededError } from '../../lib/common/errors.ts';
import { logger } from '../../lib/common/log.ts';
import { METRIC, METRICS_NAMESPACE } from '../../lib/common/metrics.ts';
import { errorResponse } from '../../lib/http/error-response.ts';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

/** The business metrics as CloudWatch receives them: the EMF lines written to standard output. */

type Emf = {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
} & Record<string, unknown>;

let store: TestStore;
let matcher: Matcher;
let written: MockInstance<typeof process.stdout.write>;
const disabledBefore = process.env.POWERTOOLS_METRICS_DISABLED;

beforeAll(async () => {
  store = await startTestStore();
  matcher = createMatcher(loadSnapshot());
  // vitest.config.ts silences the metrics for every other test.
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
}, 60_000);
afterAll(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = disabledBefore;
  await store.close();
});
beforeEach(() => {
  written = vi.spyOn(process.stdout, 'write');
});
afterEach(() => written.mockRestore());

/** Every EMF line written since the test began, parsed. */
const emitted = (): Emf[] =>
  written.mock.calls
    .flatMap(([chunk]) => String(chunk).split('\n'))
    .filter((line) => line.startsWith('{') && line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Emf);

const services = () => ({
  table: store.table,
  config: readConfig({ TABLE_NAME: store.table.name, RESCREEN_WINDOW_HOURS: '24' }),
  matcher: () => matcher,
});
const analyst = { tenantId: 'tmetrics', userId: 'u1', role: 'analyst' as const, plan: PLANS.growth };

describe('business metrics (Powertools Metrics, EMF)', () => {
  it('a screen with a hit emits Screens by origin and Hits by risk level; a clear one Screens alone; a cached answer nothing', async () => {
    const hit = await screenSubject(services(), analyst, {
      name: 'Vladimir Putin',
      dob: '1952-10-07',
      types: ['sanctions', 'pep'],
    });
    const clear = await screenSubject(services(), analyst, { name: 'Jane Quillonby', dob: '1980-02-29' });
    const cached = await screenSubject(services(), analyst, { name: 'Jane Quillonby', dob: '1980-02-29' });

    expect(hit.risk_level).not.toBe('CLEAR');
    expect(clear.risk_level).toBe('CLEAR');
    expect(cached.skipped).toBe(true);
    const lines = emitted();
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line._aws.CloudWatchMetrics).toHaveLength(1);
      expect(line._aws.CloudWatchMetrics[0].Namespace).toBe(METRICS_NAMESPACE);
      expect(line.service).toBe('screening');
    }
    const [screened, hits, screenedClear] = lines;
    expect(screened._aws.CloudWatchMetrics[0]).toMatchObject({
      Dimensions: [['service', 'origin']],
      Metrics: [{ Name: METRIC.screens, Unit: 'Count' }],
    });
    expect(screened).toMatchObject({ origin: 'api', [METRIC.screens]: 1 });
    expect(hits._aws.CloudWatchMetrics[0]).toMatchObject({
      Dimensions: [['service', 'risk_level']],
      Metrics: [{ Name: METRIC.hits, Unit: 'Count' }],
    });
    expect(hits).toMatchObject({ risk_level: hit.risk_level, [METRIC.hits]: 1 });
    expect(screenedClear).toMatchObject({ origin: 'api', [METRIC.screens]: 1 });
    expect(screenedClear).not.toHaveProperty(METRIC.hits);
  });

  it('a request refused by the monthly quota emits QuotaRefusals; other refusals do not', () => {
    const silent = logger.child({});
    silent.level = 'silent';

    errorResponse(new NotFoundError('No screen SCR-20260101-000001'), 'req-0', silent);
    const refused = errorResponse(new QuotaExceededError(1000, 1000), 'req-1', silent);

    expect(refused.statusCode).toBe(429);
    const [line] = emitted();
    expect(emitted()).toHaveLength(1);
    expect(line._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      Dimensions: [['service']],
      Metrics: [{ Name: METRIC.quotaRefusals, Unit: 'Count' }],
    });
    expect(line[METRIC.quotaRefusals]).toBe(1);
  });
});
