import * as v from 'valibot';
import { DELIVERY_OUTCOMES } from '../../webhooks/delivery-table.ts';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/events.ts';

/** Responses of the webhook routes: /webhooks and its deliveries. */

const nullableTime = v.nullable(v.string());

export const WebhookSchema = v.strictObject({
  webhook_id: v.string(),
  url: v.string(),
  events: v.array(v.string()),
  description: v.string(),
  enabled: v.boolean(),
  status: v.pipe(
    v.picklist(['active', 'failing', 'disabled']),
    v.description(
      'failing: deliveries are being dead-lettered; disabled: by an admin, or after 72 hours failing (see disabled_reason)',
    ),
  ),
  failing_since: nullableTime,
  disabled_reason: v.nullable(v.string()),
  previous_secret_expires_at: v.pipe(
    nullableTime,
    v.description('Until then deliveries carry a signature with the previous secret too'),
  ),
  last_success_at: nullableTime,
  last_failure_at: nullableTime,
  created_at: v.string(),
  updated_at: v.string(),
});

export const WebhookOneSchema = v.strictObject({ webhook: WebhookSchema });

export const WebhookWithSecretSchema = v.strictObject({
  webhook: WebhookSchema,
  secret: v.pipe(v.string(), v.description('The signing secret (whsec_…), shown this once')),
  detail: v.string(),
});

export const WebhookRotatedSchema = v.strictObject({
  webhook: WebhookSchema,
  secret: v.pipe(v.string(), v.description('The new signing secret, shown this once')),
  previous_secret_expires_at: nullableTime,
  detail: v.string(),
});

export const WebhookListSchema = v.strictObject({
  webhooks: v.array(WebhookSchema),
  cap: v.pipe(v.number(), v.description('Endpoints the plan allows')),
});

export const WebhookDeletedSchema = v.strictObject({ webhook_id: v.string(), deleted: v.literal(true) });

export const WebhookTestSchema = v.strictObject({ event_id: v.string(), detail: v.string() });

const AttemptSchema = v.strictObject({
  at: v.string(),
  status_code: v.nullable(v.number()),
  latency_ms: v.number(),
  outcome: v.picklist(['succeeded', 'failed', 'refused']),
  response_body: v.pipe(v.string(), v.description('The start of the answer (1,024 characters at most)')),
  error: v.nullable(v.string()),
});

export const DeliverySchema = v.strictObject({
  delivery_id: v.pipe(v.string(), v.description('The webhook-id header: the same on every retry and replay')),
  event_id: v.string(),
  event_type: v.picklist(WEBHOOK_EVENT_TYPES),
  sequence: v.number(),
  outcome: v.picklist(DELIVERY_OUTCOMES),
  created_at: v.string(),
  attempt_count: v.number(),
  replays: v.number(),
  last_status_code: v.nullable(v.number()),
  last_attempt_at: nullableTime,
  detail: v.nullable(v.string()),
  attempts: v.array(AttemptSchema),
});

export const DeliveryListSchema = v.strictObject({ deliveries: v.array(DeliverySchema) });
export const DeliveryReplayedSchema = v.strictObject({ delivery: DeliverySchema, detail: v.string() });
