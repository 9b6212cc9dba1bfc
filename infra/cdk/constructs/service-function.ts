import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, DockerImage, Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { BundledFiles } from '../../../lib/contract/routes.ts';
import { type BundleSpec, FunctionBundles } from '../function-bundles.ts';
import { ORIGIN_SECRET_EXTENSION, type OriginSecret } from './origin-secret.ts';

/** Where `npm run build:snapshot` writes the compiled watchlist index, relative to the project root. */
export const WATCHLIST_SNAPSHOT_SOURCE = 'data/snapshot/watchlists.json';

/** Where a function that screens finds the snapshot inside its deployment package. */
export const WATCHLIST_SNAPSHOT_IN_BUNDLE = '/var/task/watchlists.json';

/**
 * Settings every function of the service shares; the stack builds them once and hands them to
 * every function it creates, so a new Lambda cannot drift from the others.
 */
export interface ServiceFunctionSettings {
  /** Absolute path of the repository root (holds package.json and package-lock.json). */
  projectRoot: string;
  tableName: string;
  logLevel: string;
  serviceVersion: string;
  /** The customer-managed key of the stack's data, when it has one: log groups are encrypted with it. */
  encryptionKey?: IKey;
  /**
   * The synth's bundles, built once for every function the stack plans (infra/cdk/function-bundles.ts);
   * without it a function's bundle is built on its own.
   */
  bundles?: FunctionBundles;
}

export interface ServiceFunctionProps extends ServiceFunctionSettings {
  /** Entry file relative to `projectRoot`; it exports `handler`. */
  entry: string;
  /** Bundles the watchlist snapshot and gives the function the memory the matcher index needs. */
  needsWatchlists?: boolean;
  /** Reads the newest synced snapshot's version only (no bundle, no index): read access to the store. */
  readsSnapshotVersion?: boolean;
  /** Defaults to 15 s, below API Gateway's 30 s integration limit. */
  timeout?: Duration;
  /** Defaults to 1024 MB with the watchlists, else 256 MB. */
  memorySize?: number;
  environment?: Record<string, string>;
  description?: string;
  /** Concurrent executions set aside for (and capping) this function; default the account's pool. */
  reservedConcurrency?: number;
  /** Files the function reads at run time (the manifest's `bundledFiles`), copied into its package. */
  bundledFiles?: BundledFiles;
  /**
   * A function behind the HTTP API: it checks CloudFront's origin header against this secret
   * (lib/http/origin-verify.ts), read through the Parameters and Secrets extension layer.
   */
  originSecret?: OriginSecret;
}

/**
 * One Lambda function of the service: runtime, architecture, memory, log retention, tracing,
 * bundling and base environment are decided here once. Grants are not: each caller grants what
 * its function needs where it creates it, so least privilege stays visible.
 */
export class ServiceFunction extends Construct {
  readonly function: LambdaFunction;
  readonly logGroup: LogGroup;
  /** Its entry file, relative to the project root (the manifest's `entry`). */
  readonly entry: string;
  /** Whether it screens (and so reads the synced watchlist snapshot). */
  readonly needsWatchlists: boolean;
  /** Whether it reads the synced snapshot store: it screens, or it names the newest version. */
  readonly readsSnapshotStore: boolean;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.entry = props.entry;
    const needsWatchlists = props.needsWatchlists ?? false;
    this.needsWatchlists = needsWatchlists;
    this.readsSnapshotStore = needsWatchlists || (props.readsSnapshotVersion ?? false);
    if (needsWatchlists) assertSnapshotPresent(this, props.projectRoot);
    if (props.bundledFiles) assertBundledFilesPresent(this, props.projectRoot, props.bundledFiles);

    // Screening logs carry tenant and screen ids only; a month covers incident investigation
    // while the audit trail itself lives in the table.
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      encryptionKey: props.encryptionKey,
    });

    // Its own role with write access to its own log group only, instead of the
    // AWSLambdaBasicExecutionRole managed policy (logs:* on every log group of the account).
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${id}`,
    });
    role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    this.function = new LambdaFunction(this, 'Handler', {
      role,
      code: packageCode(props, { entry: props.entry, needsWatchlists }),
      handler: 'index.handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      // The matcher keeps the whole compiled watchlist index in memory (~55 MB heap) and Lambda
      // allocates CPU in proportion to memory, which is what keeps a cold start's index load short.
      memorySize: props.memorySize ?? (needsWatchlists ? 1024 : 256),
      timeout: props.timeout ?? Duration.seconds(15),
      reservedConcurrentExecutions: props.reservedConcurrency,
      logGroup: this.logGroup,
      ...(props.originSecret ? { paramsAndSecrets: ORIGIN_SECRET_EXTENSION } : {}),
      tracing: Tracing.ACTIVE,
      environment: {
        TABLE_NAME: props.tableName,
        LOG_LEVEL: props.logLevel,
        SERVICE_VERSION: props.serviceVersion,
        ...(needsWatchlists ? { WATCHLIST_SNAPSHOT: WATCHLIST_SNAPSHOT_IN_BUNDLE } : {}),
        ...(props.bundledFiles
          ? { [props.bundledFiles.variable]: path.posix.join(PACKAGE_ROOT, props.bundledFiles.into) }
          : {}),
        ...props.environment,
      },
    });
    props.originSecret?.grantCheck(this.function);

    // AwsSolutions (cdk-nag) findings every function shares, accepted for these reasons.
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so AWS requires Resource "*"',
    });
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is the runtime the service is built, typed (@types/node, esbuild target node22) and tested on; a runtime upgrade is its own change, not a side effect of a deploy',
    });
    if (props.encryptionKey) {
      for (const action of ['kms:ReEncrypt*', 'kms:GenerateDataKey*']) {
        Validations.of(this).acknowledge({
          id: `AwsSolutions-IAM5[Action::${action}]`,
          reason:
            'CDK grants on the stack data key alone: the wildcard covers ReEncryptFrom/To and GenerateDataKey[WithoutPlaintext], which SQS, DynamoDB and S3 call on the function behalf',
        });
      }
    }
  }
}

/** `rotate-key` → `RotateKey`: route ids as readable construct ids (and so function names). */
export function constructIdFor(routeId: string): string {
  return routeId
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

/** Where Lambda unpacks a function's deployment package. */
const PACKAGE_ROOT = '/var/task';

/** Bundles built on their own, for a function created outside a stack that plans its bundles. */
const unplannedBundles = new Map<string, FunctionBundles>();

/**
 * A function's deployment package: its bundle (infra/cdk/function-bundles.ts: one esbuild build for
 * every function of the synth, no source map), the files it loads lazily beside it, and the files
 * it reads at run time (the watchlist snapshot, the reference page's Swagger UI files), which
 * esbuild does not bundle. Built locally, never in Docker; hashed by its output.
 */
function packageCode(props: ServiceFunctionProps, spec: BundleSpec): Code {
  const bundles =
    props.bundles ??
    unplannedBundles.get(props.projectRoot) ??
    unplannedBundles.set(props.projectRoot, new FunctionBundles(props.projectRoot)).get(props.projectRoot);
  const bundledFiles = props.bundledFiles;
  return Code.fromAsset(props.projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: local bundling always succeeds or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
      // What tells two functions' packages apart in CDK's bundling cache.
      command: [
        'service-bundle',
        spec.entry,
        String(spec.needsWatchlists),
        JSON.stringify(bundledFiles ?? {}),
      ],
      local: {
        tryBundle(outputDir: string): boolean {
          (bundles as FunctionBundles).packageInto(outputDir, spec);
          if (spec.needsWatchlists) {
            copyFileSync(
              path.join(props.projectRoot, WATCHLIST_SNAPSHOT_SOURCE),
              path.join(outputDir, path.basename(WATCHLIST_SNAPSHOT_IN_BUNDLE)),
            );
          }
          if (bundledFiles) {
            mkdirSync(path.join(outputDir, bundledFiles.into), { recursive: true });
            for (const file of bundledFiles.files) {
              copyFileSync(
                path.join(props.projectRoot, bundledFiles.from, file),
                path.join(outputDir, bundledFiles.into, file),
              );
            }
          }
          return true;
        },
      },
    },
  });
}

function assertBundledFilesPresent(scope: Construct, projectRoot: string, bundledFiles: BundledFiles): void {
  if (!Stack.of(scope).bundlingRequired) return;
  const missing = bundledFiles.files.filter(
    (file) => !existsSync(path.join(projectRoot, bundledFiles.from, file)),
  );
  if (missing.length > 0) {
    throw new Error(
      `Files to bundle not found in ${path.join(projectRoot, bundledFiles.from)}: ${missing.join(', ')} (run \`npm ci\`).`,
    );
  }
}

function assertSnapshotPresent(scope: Construct, projectRoot: string): void {
  // Unit tests skip bundling, so the snapshot is only required when a bundle is really built.
  if (!Stack.of(scope).bundlingRequired) return;
  const snapshot = path.join(projectRoot, WATCHLIST_SNAPSHOT_SOURCE);
  if (!existsSync(snapshot)) {
    throw new Error(
      `Watchlist snapshot not found at ${snapshot}: run \`npm run build:snapshot\` before \`cdk synth\`.`,
    );
  }
}
