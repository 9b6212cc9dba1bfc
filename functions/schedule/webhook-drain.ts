import type { Context } from 'aws-lambda';
import { logger } from '../../lib/common/log.ts';
import { getWebhookDeps } from '../../lib/runtime/webhooks.ts';
import { drainOutbox } from '../../lib/webhooks/drain.ts';

/** EventBridge (every minute): the webhook outbox to the delivery queue (lib/webhooks/drain.ts). */
export async function handler(_event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) {
  const remaining = context?.getRemainingTimeInMillis?.() ?? 55_000;
  return drainOutbox(getWebhookDeps(), logger, Math.max(1_000, remaining - 5_000));
}
