import { randomBytes } from 'node:crypto';

/**
 * Rotation of the origin secret (the `x-origin-verify` value CloudFront adds to every request it
 * forwards to the HTTP API; lib/http/origin-verify.ts), run by Secrets Manager's rotation
 * schedule in its four steps. The order keeps every request accepted throughout:
 * 1. `createSecret` stages a new random value as AWSPENDING;
 * 2. `setSecret` puts it on the distribution's origin header: the functions already accept
 *    AWSPENDING (and AWSCURRENT, AWSPREVIOUS), so requests signed with either pass while the
 *    edges switch;
 * 3. `testSecret` checks that the distribution now carries it;
 * 4. `finishSecret` makes it AWSCURRENT (the old value becomes AWSPREVIOUS, still accepted).
 * Every step may be retried by Secrets Manager and repeats nothing that is already done.
 */

/** The event Secrets Manager hands a rotation function. */
export interface RotationEvent {
  SecretId: string;
  ClientRequestToken: string;
  Step: string;
}

/** What the rotation needs of Secrets Manager (the adapter in lib/runtime binds the SDK to it). */
export interface RotatingSecret {
  /** Whether rotation is on, and each version id with its stages. */
  describe(secretId: string): Promise<{ rotationEnabled: boolean; versions: Record<string, string[]> }>;
  /** The value of one version, or undefined when that version holds none yet. */
  valueOf(secretId: string, versionId: string): Promise<string | undefined>;
  /** Creates the version `versionId` with `value`, staged AWSPENDING. */
  putPending(secretId: string, versionId: string, value: string): Promise<void>;
  /** Moves AWSCURRENT from `fromVersionId` to `toVersionId`. */
  promote(secretId: string, toVersionId: string, fromVersionId: string): Promise<void>;
}

/** What the rotation needs of CloudFront: read and set the origin header of the distribution. */
export interface OriginHeaderHolder {
  /** The values the distribution's origins send in `header` now (one per origin that sends it). */
  headerValues(header: string): Promise<string[]>;
  /** Sets `header` to `value` on every origin of the distribution that sends it. */
  setHeader(header: string, value: string): Promise<void>;
}

export class RotationRefused extends Error {}

const STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;
type Step = (typeof STEPS)[number];

/**
 * 48 characters from [A-Za-z0-9] (~285 bits), header-safe like the value the stack generates at
 * creation (infra/cdk/constructs/origin-secret.ts).
 */
export function newOriginSecretValue(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let value = '';
  // Rejection sampling: 248 is the largest multiple of 62 below 256, so every character is uniform.
  while (value.length < 48) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && value.length < 48) value += alphabet[byte % alphabet.length];
    }
  }
  return value;
}

/** Runs one rotation step for `header` (lib/http/origin-verify.ts' ORIGIN_VERIFY_HEADER). */
export async function rotateOriginSecret(
  event: RotationEvent,
  header: string,
  secret: RotatingSecret,
  distribution: OriginHeaderHolder,
): Promise<void> {
  const { SecretId: secretId, ClientRequestToken: token } = event;
  if (!STEPS.includes(event.Step as Step)) throw new RotationRefused(`unknown rotation step "${event.Step}"`);
  const { rotationEnabled, versions } = await secret.describe(secretId);
  if (!rotationEnabled) throw new RotationRefused(`rotation is not enabled for ${secretId}`);
  const stages = versions[token];
  if (!stages) throw new RotationRefused(`version ${token} is not a version of ${secretId}`);
  if (stages.includes('AWSCURRENT')) return; // this rotation already finished
  if (!stages.includes('AWSPENDING'))
    throw new RotationRefused(`version ${token} is not staged AWSPENDING for rotation`);

  switch (event.Step as Step) {
    case 'createSecret':
      if ((await secret.valueOf(secretId, token)) === undefined)
        await secret.putPending(secretId, token, newOriginSecretValue());
      return;
    case 'setSecret': {
      const pending = await pendingValue(secret, secretId, token);
      const now = await distribution.headerValues(header);
      if (now.length === 0) throw new RotationRefused(`no origin of the distribution sends ${header}`);
      if (now.some((value) => value !== pending)) await distribution.setHeader(header, pending);
      return;
    }
    case 'testSecret': {
      const pending = await pendingValue(secret, secretId, token);
      const now = await distribution.headerValues(header);
      if (now.length === 0 || now.some((value) => value !== pending))
        throw new RotationRefused(`the distribution does not send the pending ${header} value yet`);
      return;
    }
    case 'finishSecret': {
      const current = Object.entries(versions).find(([, versionStages]) =>
        versionStages.includes('AWSCURRENT'),
      )?.[0];
      if (!current) throw new RotationRefused(`${secretId} has no AWSCURRENT version`);
      await secret.promote(secretId, token, current);
      return;
    }
  }
}

async function pendingValue(secret: RotatingSecret, secretId: string, token: string): Promise<string> {
  const value = await secret.valueOf(secretId, token);
  if (value === undefined)
    throw new RotationRefused(`version ${token} holds no value yet (createSecret first)`);
  return value;
}
