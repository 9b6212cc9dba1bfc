import type { SQSRecord } from 'aws-lambda';
import { createBatchQueue, queueUrlFromArn } from '../queue/batch-queue.ts';
import { type Resolver, systemResolver } from '../webhooks/address-guard.ts';
import { type Connector, nodeConnector } from '../webhooks/connector.ts';
import type { WebhookDeps } from '../webhooks/deps.ts';
import { retryDelays } from '../webhooks/retry.ts';
import { type DataKeys, kmsDataKeys, localDataKeys, secretBox } from '../webhooks/secrets.ts';
import { getServices } from './services.ts';

/**
 * The webhook adapters, built once per cold start beside the services: the delivery queue, the
 * secret box (KMS on AWS, the local key under `npm start`), the address policy and the network.
 */
let deps: WebhookDeps | undefined;
let builtFor: unknown;
let network: { resolve: Resolver; connect: Connector } = { resolve: systemResolver, connect: nodeConnector };

export function getWebhookDeps(): WebhookDeps {
  // Rebuilt when the services are (resetServices: the environment changed).
  if (!deps || builtFor !== getServices()) {
    builtFor = getServices();
    const { config, table } = getServices();
    const dataKeys = config.WEBHOOK_KMS_KEY_ID
      ? lazyKmsDataKeys(config.AWS_REGION, config.WEBHOOK_KMS_KEY_ID)
      : localDataKeys(config.WEBHOOK_SECRET_KEY ?? missingKey());
    let queue: ReturnType<typeof createBatchQueue> | undefined;
    deps = {
      table,
      box: secretBox(dataKeys),
      queue: () => {
        queue ??= createBatchQueue({
          queueUrl: config.WEBHOOK_QUEUE_URL,
          endpoint: config.SQS_ENDPOINT,
          region: config.AWS_REGION,
        });
        return queue;
      },
      policy: { allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK === 'true' },
      resolve: (host) => network.resolve(host),
      connect: (target, request) => network.connect(target, request),
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      retryDelaysSeconds: retryDelays(config.WEBHOOK_RETRY_DELAYS_SECONDS),
    };
  }
  return deps;
}

/**
 * KMS data keys whose client (and with it the SDK's KMS package) is created at the first seal or
 * open: most functions that build these adapters never touch a secret (lists, deletes, the drain).
 */
function lazyKmsDataKeys(region: string | undefined, keyId: string): DataKeys {
  let keys: Promise<DataKeys> | undefined;
  const load = () =>
    (keys ??= import('@aws-sdk/client-kms').then(({ KMSClient }) =>
      kmsDataKeys(new KMSClient({ region }), keyId),
    ));
  return {
    generate: async () => (await load()).generate(),
    open: async (sealed) => (await load()).open(sealed),
  };
}

function missingKey(): never {
  throw new Error('Webhook secrets need WEBHOOK_KMS_KEY_ID (AWS) or WEBHOOK_SECRET_KEY (local)');
}

/** Drops the cached adapters (with resetServices, when the environment changes). */
export function resetWebhookDeps(): void {
  deps = undefined;
}

/**
 * Replaces the resolver and the connector (tests: a resolver that answers a private address for a
 * name, a connector that counts its calls); undefined restores the system ones.
 */
export function setWebhookNetwork(replacement?: { resolve?: Resolver; connect?: Connector }): void {
  network = {
    resolve: replacement?.resolve ?? systemResolver,
    connect: replacement?.connect ?? nodeConnector,
  };
}

/** ChangeMessageVisibility on the delivery queue: the wait before a failed delivery's next attempt. */
export async function webhookSetVisibility(record: SQSRecord, seconds: number): Promise<void> {
  const deps = getWebhookDeps();
  const queueUrl = getServices().config.WEBHOOK_QUEUE_URL ?? queueUrlFromArn(record.eventSourceARN);
  await deps.queue().retryAfter(queueUrl, record.receiptHandle, seconds);
}
