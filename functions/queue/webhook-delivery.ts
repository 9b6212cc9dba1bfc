import { logger } from '../../lib/common/log.ts';
import { getWebhookDeps, webhookSetVisibility } from '../../lib/runtime/webhooks.ts';
import { deliveryHandler } from '../../lib/webhooks/delivery.ts';

/** SQS → one signed POST per message (lib/webhooks/delivery.ts); failures retried through the message's visibility. */
export const handler = deliveryHandler(getWebhookDeps, webhookSetVisibility, logger);
