import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { loadSnapshot } from '../lib/matcher/snapshot-file.ts';
import { routes } from '../lib/routes.ts';
import { WATCHLIST_SNAPSHOT_SOURCE } from './constructs/service-function.ts';
import { ScreeningServiceStack } from './stack.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
  version: string;
};

// Screening functions ship the compiled snapshot in their bundle; a fresh clone has none
// (data/snapshot/ is not committed), so it is built from data/ here rather than by hand.
loadSnapshot(path.join(projectRoot, WATCHLIST_SNAPSHOT_SOURCE));

const app = new App();
const logLevel: unknown = app.node.tryGetContext('logLevel');

new ScreeningServiceStack(app, 'IndividualScreeningService', {
  description: 'Individual Screening Service: sanctions, PEP and criminal-list screening API',
  // Without credentials these are undefined and the stack synthesises environment-agnostic,
  // so `cdk synth` works on a fresh clone with no AWS account.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  routes,
  projectRoot,
  serviceVersion: version,
  logLevel: typeof logLevel === 'string' ? logLevel : 'info',
});
