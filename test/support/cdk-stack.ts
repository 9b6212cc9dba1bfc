import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { AUDIT_CHAIN_ENTRY } from '../../infra/cdk/constructs/audit-chain.ts';
import { LIST_SYNC_ENTRY } from '../../infra/cdk/constructs/list-sync.ts';
import type { LockdownSettings } from '../../infra/cdk/constructs/lockdown.ts';
import { ORIGIN_SECRET_ROTATION_ENTRY } from '../../infra/cdk/constructs/origin-secret-rotation.ts';
import { BATCH_WORKER_ENTRY, ScreeningServiceStack, UNROUTED_REQUEST_ENTRY } from '../../infra/cdk/stack.ts';
import { type RouteDefinition, routes, scheduledJobs, webhookDelivery } from '../../lib/contract/routes.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const deployedRoutes: readonly RouteDefinition[] = routes;

/** The functions the routes deploy: one per entry file (routes of one entry share it). */
export const routeFunctionCount = new Set(routes.map((route) => `${route.kind} ${route.entry}`)).size;

export type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };
export type Statement = {
  Effect: string;
  Action: string | string[];
  Resource?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
};

/** The fair-use counters' narrow UpdateItem (infra/cdk/constructs/table-access.ts grantFairUseCounting). */
export const isFairUseStatement = (s: Statement) =>
  s.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes'] !== undefined;

/** A throwaway project root holding a lock file and an entry per route: bundling is skipped. */
export function fixtureRoot(entries: readonly string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'screening-infra-'));
  writeFileSync(path.join(root, 'package-lock.json'), '{}');
  // The built console the stack uploads (npm run build:console writes the real one).
  mkdirSync(path.join(root, 'dist/console/assets'), { recursive: true });
  writeFileSync(path.join(root, 'dist/console/index.html'), '<!DOCTYPE html><title>console</title>\n');
  for (const entry of entries) {
    mkdirSync(path.dirname(path.join(root, entry)), { recursive: true });
    writeFileSync(path.join(root, entry), 'export const handler = async () => ({});\n');
  }
  return root;
}

export function buildStack(
  routeList: readonly RouteDefinition[],
  root: string,
  options: { lockdown?: Partial<LockdownSettings>; region?: string; account?: string | null } = {},
): ScreeningServiceStack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  // `account: null`: a region and no account, as the CDK CLI resolves them with no credentials.
  const account = options.account === null ? undefined : (options.account ?? '111122223333');
  return new ScreeningServiceStack(app, 'Test', {
    routes: routeList,
    projectRoot: root,
    serviceVersion: '1.5.0',
    lockdown: options.lockdown,
    ...(options.region ? { env: { account, region: options.region } } : {}),
  });
}

let resources: Record<string, Resource> = {};

/**
 * CDK's own BucketDeployment provider (the function, role and policy that copy the console's files
 * to S3 during a deploy, infra/cdk/constructs/console-site.ts): not a service function, so the
 * service's rules (runtime, tracing, log group) do not apply; test/infra/stack-console.test.ts checks it.
 */
export const isDeploymentProvider = (id: string) => id.startsWith('CustomCDKBucketDeployment');

/** The service's resources of a type, CDK's deployment provider left out. */
export function resourcesOf(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([id, r]) => r.Type === type && !isDeploymentProvider(id));
}

/** Every resource of a type, CDK's deployment provider included. */
export function allResourcesOf(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

/** The Lambda function whose description starts with the route's method and path. */
export function functionFor(route: RouteDefinition): [string, Resource] {
  // Routes of one entry file share the function of the first of them (GET and HEAD /health).
  const owner = deployedRoutes.find((r) => r.kind === route.kind && r.entry === route.entry) ?? route;
  const matches = resourcesOf('AWS::Lambda::Function').filter(([, r]) =>
    String(r.Properties.Description).startsWith(`${owner.method} ${owner.path}:`),
  );
  expect(matches, `${route.method} ${route.path}`).toHaveLength(1);
  return matches[0];
}

/** Every statement allowing something to the function's role in the stack's IAM policies. */
export function statementsOf(fn: Resource): Statement[] {
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return resourcesOf('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((s) => s.Effect === 'Allow');
}

/**
 * Every action granted to the function's role by the stack's IAM policies, less the fair-use
 * counters' narrow write (test/infra/stack-functions.test.ts checks that one apart).
 */
export function actionsOf(fn: Resource): string[] {
  return statementsOf(fn)
    .filter((s) => !isFairUseStatement(s))
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
}

/**
 * Every entry the deployed stack names: routes (the deployed ones unless told), jobs, the worker,
 * the fallback, the list sync, the secret rotation, the webhook delivery and the audit chain.
 */
export const deployedEntries = (routeList: readonly { entry: string }[] = deployedRoutes) => [
  ...routeList.map((r) => r.entry),
  ...scheduledJobs.map((job) => job.entry),
  BATCH_WORKER_ENTRY,
  UNROUTED_REQUEST_ENTRY,
  LIST_SYNC_ENTRY,
  ORIGIN_SECRET_ROTATION_ENTRY,
  webhookDelivery.entry,
  AUDIT_CHAIN_ENTRY,
];

/**
 * The deployed stack's template, synthesised once per worker: the test/infra/stack-*.test.ts files
 * run in the `infra` project with `isolate: false` (vitest.config.ts), so the files a worker runs
 * share this one synth (each took 20–40 s) instead of one each. Nothing in a file changes it.
 */
let deployed: { template: Template; resources: Record<string, Resource> } | undefined;

/**
 * The stack of every deployed route, job, the worker, the fallback and the list sync, with a fresh
 * fixture root for the caller's own variants (`buildStack(deployedRoutes, root, ...)`); the caller
 * removes `root` when done. `resourcesOf`, `functionFor` and `actionsOf` read this stack.
 */
export function synthDeployedStack(): {
  root: string;
  template: Template;
  resources: Record<string, Resource>;
} {
  const root = fixtureRoot(deployedEntries());
  if (!deployed) {
    const template = Template.fromStack(buildStack(deployedRoutes, root));
    deployed = { template, resources: template.toJSON().Resources as Record<string, Resource> };
  }
  resources = deployed.resources;
  return { root, ...deployed };
}
