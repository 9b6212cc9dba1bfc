import { auditedCommit } from '../audit/trail.ts';
import { outboxEvent } from '../outbox/outbox.ts';
import type { Table } from '../store/table.ts';
import { type Principal, requireRole } from '../tenancy/auth.ts';
import { WEBHOOK_ID_PATTERN } from './endpoints.ts';
import { webhookNotFound, webhookWrites } from './webhook-table.ts';

/**
 * POST /webhooks/{id}/test: a `webhook.test` event through the same outbox, queue and signing as
 * every other, so a success proves the whole path. It is written on the endpoint item itself and
 * reaches only that endpoint (the drain sends `webhook.test` to the endpoint that carries it).
 * The event and its `webhook.test` audit entry are one transaction; a test of an endpoint the
 * tenant does not have (404) writes nothing and is one `refused` entry.
 */
export async function sendTestEvent(table: Table, caller: Principal, webhookId: string) {
  requireRole(caller, 'admin', 'Testing a webhook');
  return auditedCommit(
    table,
    caller.tenantId,
    {
      action: 'webhook.test',
      actor: { user_id: caller.userId, role: caller.role },
      details: { webhook_id: webhookId },
    },
    async (commit) => {
      if (!WEBHOOK_ID_PATTERN.test(webhookId)) throw webhookNotFound(webhookId);
      const event = outboxEvent('webhook.test', caller.tenantId, {
        webhook_id: webhookId,
        detail: `A test event sent by ${caller.userId}`,
      });
      await commit([webhookWrites.appendEvents(caller.tenantId, webhookId, [event])], {
        details: { event_id: event.event_id },
      });
      return {
        event_id: event.event_id,
        detail: 'Queued: see GET /webhooks/{webhook_id}/deliveries for the attempt',
      };
    },
  );
}
