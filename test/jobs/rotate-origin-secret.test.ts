import type { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { ResourceNotFoundException, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import {
  newOriginSecretValue,
  type OriginHeaderHolder,
  type RotatingSecret,
  RotationRefused,
  rotateOriginSecret,
} from '../../lib/jobs/rotate-origin-secret.ts';
import { cloudFrontOrigins, secretsManagerSecret } from '../../lib/runtime/origin-secret-rotation.ts';

const HEADER = 'x-origin-verify';
const SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:OriginSecret';

/** Secrets Manager's version stages as the rotation sees them (AWSPREVIOUS follows AWSCURRENT). */
function fakeSecret(rotationEnabled = true) {
  const versions = new Map<string, { value?: string; stages: string[] }>([
    ['v1', { value: 'first-value', stages: ['AWSCURRENT'] }],
  ]);
  const port: RotatingSecret = {
    describe: async () => ({
      rotationEnabled,
      versions: Object.fromEntries([...versions].map(([id, v]) => [id, [...v.stages]])),
    }),
    valueOf: async (_id, versionId) => versions.get(versionId)?.value,
    putPending: async (_id, versionId, value) => {
      const version = versions.get(versionId);
      if (!version) throw new Error('no such version');
      version.value = value;
    },
    promote: async (_id, to, from) => {
      for (const v of versions.values()) v.stages = v.stages.filter((s) => s !== 'AWSPREVIOUS');
      const old = versions.get(from);
      if (old) old.stages = ['AWSPREVIOUS'];
      const next = versions.get(to);
      if (next) next.stages = ['AWSCURRENT'];
    },
  };
  /** What RotateSecret does before the first step: a new version id staged AWSPENDING, no value yet. */
  const startRotation = (token: string) => versions.set(token, { stages: ['AWSPENDING'] });
  return { port, versions, startRotation };
}

function fakeDistribution(initial: string) {
  const headers = [initial, initial]; // the HTTP API origin and the stream origin
  let updates = 0;
  const port: OriginHeaderHolder = {
    headerValues: async () => [...headers],
    setHeader: async (_h, value) => {
      headers.fill(value);
      updates += 1;
    },
  };
  return { port, headers, updates: () => updates };
}

const steps = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'];
const step = (Step: string, token = 'v2') => ({ SecretId: SECRET, ClientRequestToken: token, Step });

describe('rotating the origin secret (Secrets Manager rotation steps)', () => {
  it('stages a new value, puts it on the distribution, then makes it current; the old value becomes previous', async () => {
    const secret = fakeSecret();
    const distribution = fakeDistribution('first-value');
    secret.startRotation('v2');
    for (const name of steps) await rotateOriginSecret(step(name), HEADER, secret.port, distribution.port);

    const fresh = secret.versions.get('v2');
    expect(fresh?.stages).toEqual(['AWSCURRENT']);
    expect(fresh?.value).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(fresh?.value).not.toBe('first-value');
    expect(distribution.headers).toEqual([fresh?.value, fresh?.value]);
    expect(secret.versions.get('v1')?.stages).toEqual(['AWSPREVIOUS']);
  });

  it('repeats nothing when Secrets Manager retries a step', async () => {
    const secret = fakeSecret();
    const distribution = fakeDistribution('first-value');
    secret.startRotation('v2');
    await rotateOriginSecret(step('createSecret'), HEADER, secret.port, distribution.port);
    const staged = secret.versions.get('v2')?.value;
    await rotateOriginSecret(step('createSecret'), HEADER, secret.port, distribution.port);
    expect(secret.versions.get('v2')?.value).toBe(staged);

    await rotateOriginSecret(step('setSecret'), HEADER, secret.port, distribution.port);
    await rotateOriginSecret(step('setSecret'), HEADER, secret.port, distribution.port);
    expect(distribution.updates()).toBe(1);

    await rotateOriginSecret(step('testSecret'), HEADER, secret.port, distribution.port);
    await rotateOriginSecret(step('finishSecret'), HEADER, secret.port, distribution.port);
    // A finished version is current: a late retry of any step is a no-op.
    await rotateOriginSecret(step('setSecret'), HEADER, secret.port, distribution.port);
    expect(secret.versions.get('v2')?.stages).toEqual(['AWSCURRENT']);
    expect(distribution.updates()).toBe(1);
  });

  it('does not make a value current that the distribution does not send (testSecret fails the rotation)', async () => {
    const secret = fakeSecret();
    const distribution = fakeDistribution('first-value');
    secret.startRotation('v2');
    await rotateOriginSecret(step('createSecret'), HEADER, secret.port, distribution.port);
    await expect(
      rotateOriginSecret(step('testSecret'), HEADER, secret.port, distribution.port),
    ).rejects.toThrow(/does not send the pending x-origin-verify value/);
    expect(secret.versions.get('v1')?.stages).toEqual(['AWSCURRENT']);
  });

  it('refuses unknown steps, unknown or unstaged versions, a secret without rotation, and a distribution without the header', async () => {
    const secret = fakeSecret();
    secret.startRotation('v2');
    const distribution = fakeDistribution('first-value');
    const refused = (event: ReturnType<typeof step>, s = secret.port, d = distribution.port) =>
      expect(rotateOriginSecret(event, HEADER, s, d)).rejects.toBeInstanceOf(RotationRefused);
    await refused(step('dropSecret'));
    await refused(step('createSecret', 'v9'));
    secret.versions.set('v3', { value: 'x', stages: [] });
    await refused(step('createSecret', 'v3'));
    await refused(step('createSecret'), fakeSecret(false).port);
    await refused(step('setSecret')); // no value staged yet
    await rotateOriginSecret(step('createSecret'), HEADER, secret.port, distribution.port);
    const headerless: OriginHeaderHolder = { headerValues: async () => [], setHeader: async () => {} };
    await refused(step('setSecret'), secret.port, headerless);
  });

  it('draws header-safe values of 48 characters, never the same twice', () => {
    const values = new Set(Array.from({ length: 200 }, newOriginSecretValue));
    expect(values.size).toBe(200);
    for (const value of values) expect(value).toMatch(/^[A-Za-z0-9]{48}$/);
  });
});

describe('the rotation adapters', () => {
  it('speak Secrets Manager: describe, read a version (none yet is undefined), stage pending, move AWSCURRENT', async () => {
    const sent: { name: string; input: Record<string, unknown> }[] = [];
    const client = {
      send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
        sent.push({ name: command.constructor.name, input: command.input });
        if (command.constructor.name === 'DescribeSecretCommand')
          return { RotationEnabled: true, VersionIdsToStages: { v1: ['AWSCURRENT'] } };
        if (command.constructor.name === 'GetSecretValueCommand') {
          if (command.input.VersionId === 'missing')
            throw new ResourceNotFoundException({ message: 'no such version', $metadata: {} });
          return { SecretString: 'value-1' };
        }
        return {};
      },
    } as unknown as SecretsManagerClient;
    const port = secretsManagerSecret(client);
    expect(await port.describe(SECRET)).toEqual({ rotationEnabled: true, versions: { v1: ['AWSCURRENT'] } });
    expect(await port.valueOf(SECRET, 'v1')).toBe('value-1');
    expect(await port.valueOf(SECRET, 'missing')).toBeUndefined();
    await port.putPending(SECRET, 'v2', 'value-2');
    await port.promote(SECRET, 'v2', 'v1');
    expect(sent.slice(-2)).toEqual([
      {
        name: 'PutSecretValueCommand',
        input: {
          SecretId: SECRET,
          ClientRequestToken: 'v2',
          SecretString: 'value-2',
          VersionStages: ['AWSPENDING'],
        },
      },
      {
        name: 'UpdateSecretVersionStageCommand',
        input: {
          SecretId: SECRET,
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: 'v2',
          RemoveFromVersionId: 'v1',
        },
      },
    ]);
  });

  it('speak CloudFront: the header on every origin that sends it, written back under the ETag read', async () => {
    const config = {
      Origins: {
        Quantity: 3,
        Items: [
          {
            Id: 'api',
            CustomHeaders: { Quantity: 1, Items: [{ HeaderName: 'X-Origin-Verify', HeaderValue: 'old' }] },
          },
          {
            Id: 'stream',
            CustomHeaders: { Quantity: 1, Items: [{ HeaderName: HEADER, HeaderValue: 'old' }] },
          },
          {
            Id: 'assets',
            CustomHeaders: { Quantity: 1, Items: [{ HeaderName: 'x-other', HeaderValue: 'keep' }] },
          },
        ],
      },
    };
    const updates: Record<string, unknown>[] = [];
    const client = {
      send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
        if (command.constructor.name === 'GetDistributionConfigCommand')
          return { DistributionConfig: structuredClone(config), ETag: 'E1' };
        updates.push(command.input);
        return {};
      },
    } as unknown as CloudFrontClient;
    const port = cloudFrontOrigins(client, 'DIST1');
    expect(await port.headerValues(HEADER)).toEqual(['old', 'old']);
    await port.setHeader(HEADER, 'new');
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ Id: 'DIST1', IfMatch: 'E1' });
    const written = updates[0].DistributionConfig as typeof config;
    expect(written.Origins.Items.map((o) => o.CustomHeaders.Items[0].HeaderValue)).toEqual([
      'new',
      'new',
      'keep',
    ]);
  });
});
