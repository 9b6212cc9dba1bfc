import * as v from 'valibot';
import { SUBSCRIBABLE_EVENTS, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../outbox/event-types.ts';
import type { OutboxEvent } from '../outbox/outbox-table.ts';

/**
 * The payload of every webhook (Standard Webhooks form: `type`, `timestamp`, `data`), with the
 * event id and the tenant's sequence number that let a receiver order and deduplicate: deliveries
 * are not ordered, and a retry carries the same `webhook-id`. Ids and counts only: the receiver
 * fetches the screen, client or batch with its own key. These schemas are the OpenAPI document's
 * `webhooks` section (lib/openapi/document.ts).
 */

const riskLevel = v.nullable(v.string());
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const WEBHOOK_EVENT_DATA = {
  'monitoring.alert': v.strictObject({
    client_id: v.string(),
    screen_id: v.pipe(
      v.string(),
      v.description('The re-screen that raised the alert: GET /screens/{screen_id}'),
    ),
    run_id: v.string(),
    previous_screen_id: v.nullable(v.string()),
    baseline_screen_id: v.nullable(v.string()),
    risk_before: riskLevel,
    risk_after: riskLevel,
    matches_added: count,
    matches_removed: count,
    matches_changed: count,
    raised_at: v.string(),
  }),
  'screen.decision_awaiting_approval': v.strictObject({
    screen_id: v.string(),
    disposition: v.string(),
    decided_by: v.pipe(v.string(), v.description('The user id of the analyst or admin who decided')),
    decided_at: v.string(),
  }),
  'screen.approved': v.strictObject({
    screen_id: v.string(),
    approves_version: v.nullable(v.number()),
    approved_by: v.string(),
    approved_at: v.string(),
  }),
  'batch.completed': v.strictObject({
    batch_id: v.string(),
    purpose: v.string(),
    total: count,
    finished: count,
    completed_at: v.string(),
  }),
  'rescreen_run.completed': v.strictObject({
    run_id: v.string(),
    purpose: v.string(),
    total: count,
    finished: count,
    completed_at: v.string(),
  }),
  'lists.updated': v.strictObject({
    snapshot_version: v.string(),
    lists: v.array(
      v.strictObject({
        list_id: v.string(),
        source_date: v.nullable(v.string()),
        individuals: v.nullable(count),
        added: count,
        changed: count,
        removed: count,
      }),
    ),
    published_at: v.string(),
  }),
  'webhook.test': v.strictObject({
    webhook_id: v.string(),
    detail: v.string(),
  }),
} as const satisfies Record<WebhookEventType, v.GenericSchema>;

export const WEBHOOK_EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'monitoring.alert':
    'A monitored client’s re-screen raised an alert: a new, removed or amended match, or a changed risk level.',
  'screen.decision_awaiting_approval':
    'A decision was recorded with `approval_requested`: an admin’s sign-off is awaited.',
  'screen.approved': 'An admin signed off a decision (four eyes).',
  'batch.completed': 'The last subject of a batch finished.',
  'rescreen_run.completed': 'The last client of a rescreen run finished.',
  'lists.updated': 'The list sync published a new watchlist snapshot; every subscribed tenant hears of it.',
  'webhook.test': 'Sent by POST /webhooks/{webhook_id}/test.',
};

/** The envelope of an event of one type, as the receiver gets it. */
export function webhookPayloadSchema(type: WebhookEventType) {
  return v.strictObject({
    type: v.literal(type),
    timestamp: v.pipe(v.string(), v.description('When the event happened (ISO 8601)')),
    event_id: v.pipe(
      v.string(),
      v.description('The event; one event sent to two endpoints has one event id'),
    ),
    sequence: v.pipe(
      v.number(),
      v.description(
        'Increases with each event of the tenant, in the order they were queued: order by it (deliveries are not ordered); gaps are possible',
      ),
    ),
    tenant_id: v.string(),
    data: WEBHOOK_EVENT_DATA[type],
  });
}

/** Caps the payload: events carry ids and counts, so one that grows past this is a bug, not data. */
export const PAYLOAD_MAX_BYTES = 64 * 1024;

/** The JSON body of one event for one tenant. */
export function payloadOf(event: OutboxEvent, tenantId: string, sequence: number): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.occurred_at,
    event_id: event.event_id,
    sequence,
    tenant_id: tenantId,
    data: event.data,
  });
}

export { SUBSCRIBABLE_EVENTS, WEBHOOK_EVENT_TYPES, type WebhookEventType };
