import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { routes } from '../../lib/contract/routes.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import type { LockdownSettings } from './constructs/lockdown.ts';
import { WATCHLIST_SNAPSHOT_SOURCE } from './constructs/service-function.ts';
import { ScreeningServiceStack } from './stack.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { version } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
  version: string;
};

// Screening functions ship the compiled snapshot in their bundle; a fresh clone has none
// (data/snapshot/ is not committed), so it is built from data/ here rather than by hand.
loadSnapshot(path.join(projectRoot, WATCHLIST_SNAPSHOT_SOURCE));

const app = new App();
const context = (name: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(name);
  return typeof value === 'string' && value !== '' ? value : undefined;
};
const logLevel = context('logLevel');
const encryption = context('encryption');
if (encryption !== undefined && encryption !== 'aws-managed' && encryption !== 'customer-managed') {
  throw new Error(`-c encryption=${encryption}: use aws-managed or customer-managed`);
}
const apiDomainName = context('apiDomain');
const apiCertificateArn = context('apiCertificateArn');
if ((apiDomainName === undefined) !== (apiCertificateArn === undefined)) {
  throw new Error('-c apiDomain and -c apiCertificateArn go together');
}
const publicDomainName = context('domain');
const publicCertificateArn = context('certificateArn');
if ((publicDomainName === undefined) !== (publicCertificateArn === undefined)) {
  throw new Error('-c domain and -c certificateArn (in us-east-1) go together');
}
// Optional lockdown settings (docs/operations.md#locked-down); the defaults deploy on a fresh account.
const lockdown: Partial<LockdownSettings> = {
  ...(encryption ? { encryption } : {}),
  ...(context('webAclArn') ? { webAclArn: context('webAclArn') } : {}),
  ...(apiDomainName && apiCertificateArn
    ? { apiDomain: { domainName: apiDomainName, certificateArn: apiCertificateArn } }
    : {}),
  ...(publicDomainName && publicCertificateArn
    ? { publicDomain: { domainName: publicDomainName, certificateArn: publicCertificateArn } }
    : {}),
};

new ScreeningServiceStack(app, 'IndividualScreeningService', {
  description: 'Individual Screening Service: sanctions, PEP and criminal-list screening API',
  // Without credentials these are undefined and the stack synthesises environment-agnostic,
  // so `cdk synth` works on a fresh clone with no AWS account.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  routes,
  projectRoot,
  serviceVersion: version,
  logLevel: logLevel ?? 'info',
  lockdown,
});

// The AwsSolutions rules (cdk-nag) on every synth: an unacknowledged finding fails it. Each
// acknowledgement sits next to the construct it concerns, with its reason (docs/operations.md#locked-down).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
