import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KMSClient } from '@aws-sdk/client-kms';

/**
 * Endpoint signing secrets at rest. Standard Webhooks signs with HMAC-SHA256, so the service must
 * read the secret back: it is sealed (AES-256-GCM), not hashed. Each secret is sealed under its own
 * data key, and the data key under a key-encryption key: KMS on AWS (GenerateDataKey / Decrypt, the
 * key never leaves KMS), a 32-byte key from configuration locally. A sealed secret reads
 * `v1.<sealed data key>.<iv>:<ciphertext+tag>`; the table never holds a secret in clear, the logs
 * never see one, and the API shows it once, when it is created.
 */
export interface DataKeys {
  /** A fresh data key: in clear for this seal, and sealed to store beside the ciphertext. */
  generate(): Promise<{ plaintext: Buffer; sealed: string }>;
  /** The clear data key of a sealed one. */
  open(sealed: string): Promise<Buffer>;
}

const b64 = (buffer: Uint8Array) => Buffer.from(buffer).toString('base64url');
const unb64 = (text: string) => Buffer.from(text, 'base64url');

function encrypt(key: Buffer, clear: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(clear), cipher.final(), cipher.getAuthTag()]);
  return `${b64(iv)}:${b64(body)}`;
}

function decrypt(key: Buffer, sealed: string): Buffer {
  const [iv, body] = sealed.split(':');
  const raw = unb64(body ?? '');
  const decipher = createDecipheriv('aes-256-gcm', key, unb64(iv ?? ''));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]);
}

/** Data keys sealed under a local key-encryption key (32 bytes, base64): `npm start` and the tests. */
export function localDataKeys(keyEncryptionKey: string): DataKeys {
  const kek = Buffer.from(keyEncryptionKey, 'base64');
  if (kek.length !== 32) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes, base64');
  return {
    async generate() {
      const plaintext = randomBytes(32);
      return { plaintext, sealed: `local:${encrypt(kek, plaintext)}` };
    },
    async open(sealed) {
      if (!sealed.startsWith('local:')) throw new Error('a data key not sealed by the local key');
      return decrypt(kek, sealed.slice('local:'.length));
    },
  };
}

/**
 * Data keys from KMS: the stack grants the functions GenerateDataKey / Decrypt on this one key. The
 * SDK's commands are loaded at the first call, so a function that never seals or opens a secret
 * does not load the KMS client at its cold start.
 */
export function kmsDataKeys(kms: KMSClient, keyId: string): DataKeys {
  return {
    async generate() {
      const { GenerateDataKeyCommand } = await import('@aws-sdk/client-kms');
      const { Plaintext, CiphertextBlob } = await kms.send(
        new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256' }),
      );
      if (!Plaintext || !CiphertextBlob) throw new Error('KMS returned no data key');
      return { plaintext: Buffer.from(Plaintext), sealed: `kms:${b64(CiphertextBlob)}` };
    },
    async open(sealed) {
      if (!sealed.startsWith('kms:')) throw new Error('a data key not sealed by KMS');
      const { DecryptCommand } = await import('@aws-sdk/client-kms');
      const { Plaintext } = await kms.send(
        new DecryptCommand({ KeyId: keyId, CiphertextBlob: unb64(sealed.slice('kms:'.length)) }),
      );
      if (!Plaintext) throw new Error('KMS returned no plaintext');
      return Buffer.from(Plaintext);
    },
  };
}

/** Seals and opens endpoint secrets; opened data keys are kept for the life of a warm function. */
export interface SecretBox {
  seal(secret: string): Promise<string>;
  open(sealed: string): Promise<string>;
}

export function secretBox(dataKeys: DataKeys): SecretBox {
  const opened = new Map<string, Promise<Buffer>>();
  return {
    async seal(secret) {
      const { plaintext, sealed } = await dataKeys.generate();
      return `v1.${sealed}.${encrypt(plaintext, Buffer.from(secret, 'utf8'))}`;
    },
    async open(box) {
      const [version, sealedKey, sealedSecret] = box.split('.');
      if (version !== 'v1' || !sealedKey || !sealedSecret) throw new Error('not a sealed webhook secret');
      let key = opened.get(sealedKey);
      if (!key) {
        key = dataKeys.open(sealedKey);
        opened.set(sealedKey, key);
        key.catch(() => opened.delete(sealedKey));
      }
      return decrypt(await key, sealedSecret).toString('utf8');
    },
  };
}

/** A new signing secret in the Standard Webhooks form: `whsec_` + 32 random bytes, base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
