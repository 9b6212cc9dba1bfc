import * as v from 'valibot';
import { ConflictError, NotFoundError } from '../common/errors.ts';
import { outboxUpdate } from '../outbox/outbox.ts';
import type { OutboxEvent } from '../outbox/outbox-table.ts';
import { keys } from '../store/schema.ts';
import { parseItem, queryAll, readItem, type Table } from '../store/table.ts';
import { sendWrite, type TableWrite } from '../store/write.ts';

/**
 * The `webhook` item (a tenant's endpoint, `WEBHOOK#<id>` in the tenant's partition) and the
 * `webhook-seq` item (the tenant's event sequence): the endpoint declared once, its reads, and its
 * writes with the conditions that keep it whole (the plan's cap, an unchanged `updated_at`, an
 * endpoint that still exists).
 *
 * The plan's cap is counted on the tenant item (`webhook_count`): its two writes are here, beside
 * the endpoint's, until the tenant item has a module of its own in lib/tenancy.
 */

const SecretSchema = v.object({
  sealed: v.string(),
  created_at: v.string(),
  expires_at: v.nullable(v.string()),
});

export const WebhookItemSchema = v.object({
  entity: v.literal('webhook'),
  tenant_id: v.string(),
  webhook_id: v.string(),
  url: v.string(),
  events: v.array(v.string()),
  description: v.string(),
  enabled: v.boolean(),
  secrets: v.array(SecretSchema),
  created_at: v.string(),
  created_by: v.string(),
  updated_at: v.string(),
  failing_since: v.optional(v.nullable(v.string()), null),
  disabled_reason: v.optional(v.nullable(v.string()), null),
  last_success_at: v.optional(v.nullable(v.string()), null),
  last_failure_at: v.optional(v.nullable(v.string()), null),
});
export type WebhookItem = v.InferOutput<typeof WebhookItemSchema>;
export type WebhookSecret = v.InferOutput<typeof SecretSchema>;

/** The 404 of an endpoint the caller's tenant does not have. */
export const webhookNotFound = (webhookId: string) =>
  new NotFoundError(`No webhook ${webhookId} in your tenant`);

/** The endpoint `webhookId` of the tenant (consistent read), or undefined. */
export async function readWebhookItem(
  table: Table,
  tenantId: string,
  webhookId: string,
): Promise<WebhookItem | undefined> {
  const item = await readItem(table, keys.webhook(tenantId, webhookId));
  return item ? parseItem(WebhookItemSchema, item) : undefined;
}

/** Every endpoint of the tenant (consistent reads). */
export async function listWebhookItems(table: Table, tenantId: string): Promise<WebhookItem[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':prefix': 'WEBHOOK#' },
    ConsistentRead: true,
  });
  return items.map((item) => parseItem(WebhookItemSchema, item));
}

/** What a PATCH changes; `enabled: true` also clears the failing state. */
export interface WebhookChanges {
  url?: string;
  events?: readonly string[];
  description?: string;
  enabled?: boolean;
}

/** An update of an endpoint's delivery state (the delivery function's writes). */
function endpointUpdate(
  endpoint: WebhookItem,
  update: {
    UpdateExpression: string;
    ConditionExpression?: string;
    ExpressionAttributeValues: Record<string, unknown>;
  },
): TableWrite {
  return {
    Update: { Key: keys.webhook(endpoint.tenant_id, endpoint.webhook_id), ...update },
    what: 'webhook endpoint',
  };
}

/** The writes of the endpoint item and of its slot on the tenant item, as values. */
export const webhookWrites = {
  /**
   * Takes a slot of the plan's cap: one conditional ADD on the tenant item, so two concurrent
   * registrations cannot both take the last slot. Refused: a 409 naming the plan and its cap.
   */
  takeSlot(tenantId: string, cap: number, planName: string): TableWrite {
    return {
      Update: {
        Key: keys.tenant(tenantId),
        UpdateExpression: 'ADD webhook_count :one',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(webhook_count) OR webhook_count < :cap)',
        ExpressionAttributeValues: { ':one': 1, ':cap': cap },
      },
      what: 'webhook endpoint slot',
      refused: () =>
        new ConflictError(
          `Your plan (${planName}) allows ${cap} webhook endpoint${cap === 1 ? '' : 's'}; delete one or change plan`,
        ),
    };
  },

  /** Frees a slot of the cap (an endpoint was deleted). */
  freeSlot(tenantId: string): TableWrite {
    return {
      Update: {
        Key: keys.tenant(tenantId),
        UpdateExpression: 'ADD webhook_count :minus',
        ExpressionAttributeValues: { ':minus': -1 },
      },
      what: 'webhook endpoint slot',
    };
  },

  /** Stores a new endpoint (its id is fresh: condition attribute_not_exists). */
  create(item: WebhookItem): TableWrite {
    return {
      Put: {
        Item: { ...keys.webhook(item.tenant_id, item.webhook_id), ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
      what: 'webhook endpoint',
      // A fresh id that is taken is a fault, not the caller's conflict.
      refused: () => new Error(`Webhook ${item.webhook_id} already exists`),
    };
  },

  /**
   * Applies a PATCH, condition `updated_at` still as read (`seenUpdatedAt`); refused: a 409 (the
   * endpoint changed or was deleted meanwhile).
   */
  change(
    tenantId: string,
    webhookId: string,
    seenUpdatedAt: string,
    changes: WebhookChanges,
    now: string,
  ): TableWrite {
    const sets: string[] = ['updated_at = :now'];
    const values: Record<string, unknown> = { ':now': now, ':seen': seenUpdatedAt };
    const set = (expression: string, name: string, value: unknown) => {
      sets.push(expression);
      values[name] = value;
    };
    if (changes.url !== undefined) set('#url = :url', ':url', changes.url);
    if (changes.events !== undefined) set('events = :events', ':events', [...changes.events]);
    if (changes.description !== undefined)
      set('description = :description', ':description', changes.description);
    if (changes.enabled !== undefined) set('enabled = :enabled', ':enabled', changes.enabled);
    if (changes.enabled) set('failing_since = :null, disabled_reason = :null', ':null', null);
    return {
      Update: {
        Key: keys.webhook(tenantId, webhookId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'updated_at = :seen',
        ExpressionAttributeNames: changes.url !== undefined ? { '#url': 'url' } : undefined,
        ExpressionAttributeValues: values,
      },
      what: 'webhook endpoint',
      refused: () => new ConflictError(`Webhook ${webhookId} changed meanwhile; read it again`),
    };
  },

  /**
   * Replaces the secrets (a rotation), condition `updated_at` still as read; refused: a 409 (rotate
   * again).
   */
  rotateSecrets(
    tenantId: string,
    webhookId: string,
    seenUpdatedAt: string,
    secrets: readonly WebhookSecret[],
    now: string,
  ): TableWrite {
    return {
      Update: {
        Key: keys.webhook(tenantId, webhookId),
        UpdateExpression: 'SET secrets = :secrets, updated_at = :now',
        ConditionExpression: 'updated_at = :seen',
        ExpressionAttributeValues: { ':secrets': [...secrets], ':now': now, ':seen': seenUpdatedAt },
      },
      what: 'webhook endpoint',
      refused: () => new ConflictError(`Webhook ${webhookId} changed meanwhile; rotate again`),
    };
  },

  /** Deletes the endpoint; refused (there is none): a 404. */
  remove(tenantId: string, webhookId: string): TableWrite {
    return {
      Delete: { Key: keys.webhook(tenantId, webhookId), ConditionExpression: 'attribute_exists(pk)' },
      what: 'webhook endpoint',
      refused: () => webhookNotFound(webhookId),
    };
  },

  /**
   * Appends outbox events to the endpoint item itself (a `webhook.test`, lib/webhooks/test-event.ts);
   * refused (there is no such endpoint): a 404.
   */
  appendEvents(tenantId: string, webhookId: string, events: readonly OutboxEvent[]): TableWrite {
    const key = keys.webhook(tenantId, webhookId);
    const update = outboxUpdate(key, events);
    return {
      Update: {
        Key: key,
        UpdateExpression: `SET ${update.set}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: update.values,
      },
      what: 'webhook endpoint',
      refused: () => webhookNotFound(webhookId),
    };
  },

  /** A delivery succeeded: the endpoint is no longer failing (if it still exists). */
  succeeded(endpoint: WebhookItem, at: string): TableWrite {
    return endpointUpdate(endpoint, {
      UpdateExpression: 'SET last_success_at = :at, failing_since = :null',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': at, ':null': null },
    });
  },

  /** A delivery was dead-lettered: the endpoint is failing since its first one (if it still exists). */
  deadLettered(endpoint: WebhookItem, at: string): TableWrite {
    return endpointUpdate(endpoint, {
      UpdateExpression:
        'SET last_failure_at = :at, failing_since = if_not_exists(failing_since, :at), dead_lettered = if_not_exists(dead_lettered, :zero) + :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': at, ':zero': 0, ':one': 1 },
    });
  },

  /** Sets `failing_since` (stored as null, cleared by a success, which `if_not_exists` keeps). */
  failingSince(endpoint: WebhookItem, at: string): TableWrite {
    return endpointUpdate(endpoint, {
      UpdateExpression: 'SET failing_since = :at',
      // An endpoint deleted meanwhile stays deleted: an update would create a stub of it.
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': at },
    });
  },

  /** Disables an endpoint with the reason, condition still enabled. */
  disable(endpoint: WebhookItem, reason: string): TableWrite {
    return endpointUpdate(endpoint, {
      UpdateExpression: 'SET enabled = :false, disabled_reason = :why',
      ConditionExpression: 'enabled = :true',
      ExpressionAttributeValues: { ':false': false, ':true': true, ':why': reason },
    });
  },
};

/**
 * The endpoint as {@link webhookWrites.change} leaves it, from the endpoint as read: the write is
 * sent in a transaction (with its audit entry), which returns no attributes. Its condition
 * (`updated_at` as read) holds only if no other change landed since the read; the delivery state
 * (last success or failure), which deliveries update without `updated_at`, is as read.
 */
export function changedWebhookItem(current: WebhookItem, changes: WebhookChanges, now: string): WebhookItem {
  return {
    ...current,
    ...(changes.url !== undefined ? { url: changes.url } : {}),
    ...(changes.events !== undefined ? { events: [...changes.events] } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
    ...(changes.enabled ? { failing_since: null, disabled_reason: null } : {}),
    updated_at: now,
  };
}

/**
 * Marks a delivery dead-lettered on its endpoint ({@link webhookWrites.deadLettered}) and returns
 * the endpoint's `failing_since` as the write left it (null or absent when a success had cleared it).
 */
export async function recordDeadLettered(
  table: Table,
  endpoint: WebhookItem,
  at: string,
): Promise<string | null | undefined> {
  const attributes = await sendWrite(table, webhookWrites.deadLettered(endpoint, at), 'ALL_NEW');
  return attributes?.failing_since as string | null | undefined;
}

/** The tenant's next webhook event sequence: ADD 1 on its `webhook-seq` item, the new value. */
export async function nextWebhookSequence(table: Table, tenantId: string): Promise<number> {
  const attributes = await sendWrite(
    table,
    {
      Update: {
        Key: keys.webhookSequence(tenantId),
        UpdateExpression: 'SET entity = :entity ADD #seq :one',
        ExpressionAttributeNames: { '#seq': 'sequence' },
        ExpressionAttributeValues: { ':one': 1, ':entity': 'webhook-seq' },
      },
      what: 'webhook event sequence',
    },
    'UPDATED_NEW',
  );
  return Number(attributes?.sequence);
}
