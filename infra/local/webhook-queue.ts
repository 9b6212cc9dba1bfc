import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultRegion, localSettings, setEnvironment } from '../../lib/common/config.ts';
import { webhookDelivery } from '../../lib/contract/routes.ts';
import { createSqsClient } from '../../lib/queue/sqs-client.ts';
import { attemptsOf, retryDelays } from '../../lib/webhooks/retry.ts';
import { createQueue, peekBodies, queueArnOf } from './queue.ts';
import { type QueueWorker, startConsumers } from './queue-consumers.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

export const WEBHOOK_QUEUE_NAME = 'screening-webhooks';
export const WEBHOOK_DEAD_LETTER_QUEUE_NAME = 'screening-webhooks-dlq';

export interface LocalWebhookQueue {
  queueUrl: string;
  /** Up to ten messages of the dead-letter queue (looking does not hide them). */
  deadLetterBodies(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The webhook settings of the local runtime, set before the handlers read their configuration:
 * loopback receivers allowed (http://127.0.0.1, development and tests), the outbox drained every
 * second, and a key sealing the endpoints' secrets, kept in DATA_DIR so a restart still opens them.
 */
export function localWebhookSettings(dataDir: string | null): void {
  const settings = localSettings();
  let key = settings.webhookSecretKey;
  if (!key) {
    const file = dataDir ? join(dataDir, 'webhook-secret-key') : undefined;
    if (file && existsSync(file)) key = readFileSync(file, 'utf8').trim();
    else {
      key = randomBytes(32).toString('base64');
      if (file) writeFileSync(file, `${key}\n`, { mode: 0o600 });
    }
  }
  setEnvironment({
    WEBHOOK_SECRET_KEY: key,
    WEBHOOK_ALLOW_LOOPBACK: settings.webhookAllowLoopback ?? 'true',
    WEBHOOK_DRAIN_PERIOD_SECONDS: settings.webhookDrainPeriodSeconds ?? '1',
  });
}

/**
 * The delivery queue on the local fauxqs (beside the batch queue), with its DLQ after as many
 * receives as the retry schedule has attempts, and sqs-consumer pollers handing the deployed
 * delivery handler SQSEvent batches, as Lambda's event source would.
 */
export async function startWebhookQueue(
  endpoint: string,
  retryDelaysSetting: string | undefined,
): Promise<LocalWebhookQueue> {
  const region = defaultRegion();
  const admin = createSqsClient({ endpoint, region });
  let queueUrl: string;
  let queueArn: string;
  let deadLetterUrl: string;
  try {
    deadLetterUrl = await createQueue(admin, WEBHOOK_DEAD_LETTER_QUEUE_NAME, {
      MessageRetentionPeriod: String(14 * 24 * 3600),
    });
    queueUrl = await createQueue(admin, WEBHOOK_QUEUE_NAME, {
      VisibilityTimeout: '60',
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: await queueArnOf(admin, deadLetterUrl),
        maxReceiveCount: String(attemptsOf(retryDelays(retryDelaysSetting))),
      }),
    });
    queueArn = await queueArnOf(admin, queueUrl);
  } finally {
    admin.destroy();
  }
  setEnvironment({ WEBHOOK_QUEUE_URL: queueUrl });
  const entry = resolve(repoRoot, webhookDelivery.entry);
  const worker = ((await import(pathToFileURL(entry).href)) as { handler: QueueWorker }).handler;
  const sqs = createSqsClient({ endpoint, region });
  const consumers = startConsumers(
    { queueUrl, queueArn, region, consumers: localSettings().webhookConsumers },
    sqs,
    worker,
  );
  return {
    queueUrl,
    deadLetterBodies: () => peekBodies(sqs, deadLetterUrl),
    close: async () => {
      await consumers.stop();
      sqs.destroy();
      setEnvironment({ WEBHOOK_QUEUE_URL: undefined });
    },
  };
}
