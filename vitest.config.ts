import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/longest-first-sequencer.ts';

/**
 * One run, one summary, one table engine: AWS's own DynamoDB Local (Java 17), so every
 * conditional write and transaction is tested with DynamoDB's semantics.
 */
const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // The business metrics' EMF lines (lib/common/metrics.ts) stay out of the test output;
  // test/common/metrics.test.ts turns them on to read them.
  env: {
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    LOG_LEVEL: 'silent',
    POWERTOOLS_METRICS_DISABLED: 'true',
  },
};

/**
 * The coverage floor `npm test` enforces (scripts/test.sh runs with --coverage): 95% of the lines
 * of the service's code overall, and every line of the modules that charge a tenant's quota: the
 * usage item's writes (charge, refund, and the charge made in the same write that numbers a
 * screen), and the two modules that call them.
 */
const coverage = {
  provider: 'v8' as const,
  include: ['lib/**/*.ts', 'functions/**/*.ts'],
  reporter: ['text-summary'],
  reportsDirectory: 'coverage',
  thresholds: {
    lines: 95,
    'lib/tenancy/usage-table.ts': { lines: 100, functions: 100 },
    'lib/tenancy/quota.ts': { lines: 100, functions: 100 },
    'lib/screening/screen-id.ts': { lines: 100, functions: 100 },
  },
};

/**
 * The journeys that keep the whole local stack (infra/local/stack.ts served on a loopback port, or
 * `npm start` as a process), because a real socket or process is what they test: streams read as
 * a client reads them (SSE), dropped connections, restarts and the start-up, the browser, raw
 * request targets, host-name webhooks, the alert-lag flow, the README's curl walk-through, and
 * the fair-use limits (a rate window and streams held open). Two at a time like the rest, beside
 * them: no file runs alone any more (fair-use and sync-sanity did, 41 s on one core, until their
 * waits were bounded by what they measure rather than by the machine's speed). docs/testing.md
 * gives the reasons file by file.
 */
const journeys = [
  'test/api/batch-stream.test.ts',
  'test/api/batch-clients-stream.test.ts',
  'test/api/client-drops.test.ts',
  'test/api/readiness.test.ts',
  'test/api/reference-page.test.ts',
  'test/api/readme-examples.test.ts',
  'test/api/input-rules.test.ts',
  'test/console/analyst-day.test.ts',
  'test/console/console.test.ts',
  'test/console/admin-pages.test.ts',
  'test/infra/local-binding.test.ts',
  'test/infra/restart-fault.test.ts',
  'test/sync/alert-lag.test.ts',
  'test/sync/lists-in-force.test.ts',
  'test/webhooks/host-names.test.ts',
  'test/webhooks/restart.test.ts',
  'test/api/fair-use.test.ts',
];

/**
 * The API tests that run in-process (test/support/in-process-stack.ts): `useLocalStack()` files.
 * They share their worker's modules (`isolate: false`): the handlers are imported and the
 * watchlists indexed once per worker instead of once per file; each file still gets its own
 * table, demo tenants, queues and audit chain. A file that leaves process state behind (an
 * environment variable a module caches, a global it replaces) belongs in `unit` instead.
 */
const inProcess = [
  'test/api/**/*.test.ts',
  'test/audit/verify-audit.test.ts',
  'test/openapi/document.test.ts',
  'test/webhooks/delivery.test.ts',
];
/**
 * The CDK stack's tests: one worker's files share one synth of the deployed stack
 * (test/support/cdk-stack.ts memoises it; `isolate: false` keeps the module across files), and
 * each file synthesises its own variants once.
 */
const stackTests = ['test/infra/stack-*.test.ts'];

/** In-process too, but isolated: they set the origin secret's environment for their handlers. */
const inProcessIsolated = ['test/api/origin-verify.test.ts'];

export default defineConfig({
  test: {
    coverage,
    // Two files at once (the machine's two cores; vitest's default is cores − 1): most files wait
    // on DynamoDB Local, timers or child processes more than they compute.
    maxWorkers: 2,
    // Each project's slowest files first, from the times a whole run measured (a fresh clone has no
    // vitest cache to order by).
    sequence: { sequencer: LongestFirstSequencer },
    // One engine for every test: AWS's DynamoDB Local, one for the run (shared by the projects
    // below), a fresh table per store.
    globalSetup: ['test/support/dynamodb-local-setup.ts'],
    // The run's DynamoDB Local for in-process stacks; every response the HTTP tests receive is
    // checked against the OpenAPI document.
    setupFiles: ['test/support/dynamodb-local-env.ts', 'test/support/contract-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          ...shared,
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...journeys, ...inProcess, ...stackTests],
          // A worker's files share its modules, as in `api` (the AWS SDK, the parsers and the
          // matcher imported once per worker, not once per file): `npx vitest run --project unit`
          // took 278 s isolated and 205 s shared (import 138 s and 80 s summed over the files),
          // 104 files passing either way. No file here mocks a module or leaves fake timers,
          // spies or environment behind (metrics.test.ts puts its variable back).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          ...shared,
          name: 'api',
          include: inProcess,
          exclude: [...journeys, ...inProcessIsolated],
          isolate: false,
        },
      },
      { extends: true, test: { ...shared, name: 'api-isolated', include: inProcessIsolated } },
      {
        extends: true,
        test: { ...shared, name: 'infra', include: stackTests, isolate: false },
      },
      // The journeys share their worker's modules too: each still starts its own stack (table,
      // tenants, queues, server), and the few that set environment variables put them back.
      { extends: true, test: { ...shared, name: 'journeys', include: journeys, isolate: false } },
    ],
  },
});
