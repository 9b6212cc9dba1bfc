/**
 * The webhook event types (docs/webhooks.md): named here, on the outbox's floor, so that the
 * features that cause them (screening, batch, monitoring, the list sync) can write them with their
 * change; their payload schemas are lib/webhooks/events.ts.
 */
export const WEBHOOK_EVENT_TYPES = [
  'monitoring.alert',
  'screen.decision_awaiting_approval',
  'screen.approved',
  'batch.completed',
  'rescreen_run.completed',
  'lists.updated',
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * The types an endpoint may subscribe to: all but `webhook.test`, which goes only to the endpoint
 * it is sent from. The console's webhook form offers these (plain data, no schema library, so the
 * console's bundle can import it).
 */
export const SUBSCRIBABLE_EVENTS = WEBHOOK_EVENT_TYPES.filter(
  (type): type is SubscribableEvent => type !== 'webhook.test',
);
export type SubscribableEvent = Exclude<WebhookEventType, 'webhook.test'>;
