import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { type AuditDetails, auditedCommit, type CommitAudited } from '../audit/trail.ts';
import { InvalidRequestError } from '../common/errors.ts';
import { strictBody } from '../common/fields.ts';
import type { Table } from '../store/table.ts';
import { type Principal, requireRole } from '../tenancy/auth.ts';
import type { PlanId } from '../tenancy/plans.ts';
import { checkTarget } from './address-guard.ts';
import type { WebhookDeps } from './deps.ts';
import { SUBSCRIBABLE_EVENTS } from './events.ts';
import { newSigningSecret } from './secrets.ts';
import {
  changedWebhookItem,
  listWebhookItems,
  readWebhookItem,
  type WebhookItem,
  webhookNotFound,
  webhookWrites,
} from './webhook-table.ts';

/**
 * A tenant's webhook endpoints (admins only): a URL, the events it hears, a description, enabled
 * or not. Its signing secret is shown once, when it is created or rotated; the table holds it
 * sealed (./secrets.ts). An endpoint whose deliveries keep failing is marked `failing`, and after
 * 72 hours of it `disabled` with the reason (lib/webhooks/delivery.ts).
 *
 * Each admin change (create, update, delete, rotate) is one transaction with its audit entry
 * (`auditedCommit`): the endpoint, its slot of the plan's cap on the tenant item where it takes or
 * frees one, and the `done` entry are written together or not at all. A refused change (the cap
 * reached, an endpoint gone or changed meanwhile) writes nothing and is on the trail as one
 * `refused` entry.
 */

/** Endpoints a plan may register (docs/webhooks.md). */
export const WEBHOOK_ENDPOINT_CAPS: Readonly<Record<PlanId, number>> = {
  starter: 1,
  growth: 3,
  professional: 10,
  enterprise: 25,
};

/** How long a rotated-out secret still signs, by default and at most. */
export const DEFAULT_OVERLAP_HOURS = 24;
export const MAX_OVERLAP_HOURS = 7 * 24;

export const WEBHOOK_ID_PATTERN = /^whk_[0-9a-f]{16}$/;

const eventsField = v.pipe(
  v.array(
    v.picklist(SUBSCRIBABLE_EVENTS, `must each be one of ${SUBSCRIBABLE_EVENTS.join(', ')}`),
    'must be an array of event types',
  ),
  v.minLength(1, 'must name at least one event type'),
  v.maxLength(SUBSCRIBABLE_EVENTS.length, 'names an event type twice'),
  v.check((list) => new Set(list).size === list.length, 'names an event type twice'),
  v.description(`Event types to send: ${SUBSCRIBABLE_EVENTS.join(', ')}`),
);
const urlField = v.pipe(
  v.string('must be a URL'),
  v.maxLength(2000, 'must be at most 2000 characters'),
  v.description('Where events are POSTed: https, on a public address'),
);
const descriptionField = v.pipe(
  v.string('must be text'),
  v.maxLength(500, 'must be at most 500 characters'),
  v.description('What the endpoint is for'),
);

export const CreateWebhookSchema = strictBody({
  url: urlField,
  events: eventsField,
  description: v.optional(descriptionField),
  enabled: v.optional(v.boolean('must be true or false')),
});
export const UpdateWebhookSchema = strictBody({
  url: v.optional(urlField),
  events: v.optional(eventsField),
  description: v.optional(descriptionField),
  enabled: v.optional(
    v.pipe(
      v.boolean('must be true or false'),
      v.description('true re-enables a disabled endpoint and clears its failing state'),
    ),
  ),
});
export const RotateSecretSchema = strictBody({
  overlap_hours: v.optional(
    v.pipe(
      v.number('must be a number of hours'),
      v.minValue(0, 'must be at least 0'),
      v.maxValue(MAX_OVERLAP_HOURS, `must be at most ${MAX_OVERLAP_HOURS}`),
      v.description(
        `Hours the old secret keeps signing beside the new one (default ${DEFAULT_OVERLAP_HOURS})`,
      ),
    ),
  ),
});

/** An endpoint as the API shows it: never a secret. */
export function webhookView(item: WebhookItem, now = new Date()) {
  const overlap = item.secrets
    .slice(1)
    .find((secret) => secret.expires_at && secret.expires_at > now.toISOString());
  return {
    webhook_id: item.webhook_id,
    url: item.url,
    events: item.events,
    description: item.description,
    enabled: item.enabled,
    status: (!item.enabled ? 'disabled' : item.failing_since ? 'failing' : 'active') as
      | 'active'
      | 'failing'
      | 'disabled',
    failing_since: item.failing_since ?? null,
    disabled_reason: item.disabled_reason ?? null,
    previous_secret_expires_at: overlap?.expires_at ?? null,
    last_success_at: item.last_success_at ?? null,
    last_failure_at: item.last_failure_at ?? null,
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}
export type WebhookView = ReturnType<typeof webhookView>;

function requireAdmin(caller: Principal, action: string) {
  requireRole(caller, 'admin', action);
}

export async function getWebhook(
  table: Table,
  tenantId: string,
  webhookId: string,
): Promise<WebhookItem | undefined> {
  if (!WEBHOOK_ID_PATTERN.test(webhookId)) return undefined;
  return readWebhookItem(table, tenantId, webhookId);
}

/** Who made an admin change, for its audit entries. */
const actorOf = (caller: Principal) => ({ user_id: caller.userId, role: caller.role });
/**
 * An audit entry names the URL's host only: a path or query may carry the receiver's own token.
 * Null for a URL that does not parse (the URL check refuses it with a 400, recorded as such).
 */
const hostOf = (url: string): string | null => (URL.canParse(url) ? new URL(url).host : null);

/** The caller's tenant's endpoint `webhookId`, or 404. */
export async function requireWebhook(
  table: Table,
  caller: Principal,
  webhookId: string,
): Promise<WebhookItem> {
  const item = await getWebhook(table, caller.tenantId, webhookId);
  if (!item) throw webhookNotFound(webhookId);
  return item;
}

/** POST /webhooks: checks the URL (form and every address), takes a slot of the plan's cap, stores the sealed secret. */
export async function createWebhook(
  deps: Pick<WebhookDeps, 'table' | 'box' | 'policy' | 'resolve'>,
  caller: Principal,
  body: v.InferOutput<typeof CreateWebhookSchema>,
) {
  requireAdmin(caller, 'Registering a webhook');
  return auditedCommit(
    deps.table,
    caller.tenantId,
    {
      action: 'webhook.create',
      actor: actorOf(caller),
      details: { host: hostOf(body.url), events: body.events.join(',') },
    },
    (commit) => registerWebhook(deps, caller, body, commit),
  );
}

async function registerWebhook(
  deps: Pick<WebhookDeps, 'box' | 'policy' | 'resolve'>,
  caller: Principal,
  body: v.InferOutput<typeof CreateWebhookSchema>,
  commit: CommitAudited,
) {
  await checkTarget(body.url, deps.policy, deps.resolve);
  const cap = WEBHOOK_ENDPOINT_CAPS[caller.plan.id];
  const now = new Date().toISOString();
  const secret = newSigningSecret();
  const item: WebhookItem = {
    entity: 'webhook',
    tenant_id: caller.tenantId,
    webhook_id: `whk_${randomBytes(8).toString('hex')}`,
    url: body.url,
    events: [...body.events],
    description: body.description ?? '',
    enabled: body.enabled ?? true,
    secrets: [{ sealed: await deps.box.seal(secret), created_at: now, expires_at: null }],
    created_at: now,
    created_by: caller.userId,
    updated_at: now,
    failing_since: null,
    disabled_reason: null,
    last_success_at: null,
    last_failure_at: null,
  };
  // The slot is one conditional ADD on the tenant item, in the same transaction as the endpoint and
  // its entry: two concurrent registrations cannot both take the last slot, and a refused one
  // (a 409 naming the plan's cap) writes no endpoint.
  await commit([webhookWrites.takeSlot(caller.tenantId, cap, caller.plan.name), webhookWrites.create(item)], {
    details: { webhook_id: item.webhook_id },
  });
  return {
    webhook: webhookView(item),
    secret,
    detail:
      'The signing secret is shown this once: store it now. Verify each delivery with a Standard Webhooks library.',
  };
}

export async function listWebhooks(table: Table, caller: Principal) {
  requireAdmin(caller, 'Listing webhooks');
  const items = await listWebhookItems(table, caller.tenantId);
  return {
    webhooks: items.map((item) => webhookView(item)),
    cap: WEBHOOK_ENDPOINT_CAPS[caller.plan.id],
  };
}

export async function readWebhook(table: Table, caller: Principal, webhookId: string) {
  requireAdmin(caller, 'Reading a webhook');
  return { webhook: webhookView(await requireWebhook(table, caller, webhookId)) };
}

/** PATCH /webhooks/{id}: a new URL is checked like a new endpoint; enabling clears the failing state. */
export async function updateWebhook(
  deps: Pick<WebhookDeps, 'table' | 'policy' | 'resolve'>,
  caller: Principal,
  webhookId: string,
  body: v.InferOutput<typeof UpdateWebhookSchema>,
) {
  requireAdmin(caller, 'Changing a webhook');
  return auditedCommit(
    deps.table,
    caller.tenantId,
    {
      action: 'webhook.update',
      actor: actorOf(caller),
      details: {
        webhook_id: webhookId,
        host: body.url === undefined ? undefined : hostOf(body.url),
        events: body.events?.join(','),
        enabled: body.enabled,
      } as AuditDetails,
    },
    (commit) => changeWebhook(deps, caller, webhookId, body, commit),
  );
}

async function changeWebhook(
  deps: Pick<WebhookDeps, 'table' | 'policy' | 'resolve'>,
  caller: Principal,
  webhookId: string,
  body: v.InferOutput<typeof UpdateWebhookSchema>,
  commit: CommitAudited,
) {
  if (Object.values(body).every((value) => value === undefined))
    throw new InvalidRequestError('Send at least one of url, events, description, enabled');
  const current = await requireWebhook(deps.table, caller, webhookId);
  if (body.url !== undefined) await checkTarget(body.url, deps.policy, deps.resolve);
  const now = new Date().toISOString();
  // Condition: `updated_at` as read; refused (changed or deleted meanwhile), a 409 and nothing written.
  await commit([webhookWrites.change(caller.tenantId, webhookId, current.updated_at, body, now)], {
    details: { updated_at: now },
  });
  return { webhook: webhookView(changedWebhookItem(current, body, now)) };
}

/** DELETE /webhooks/{id}: queued deliveries to it end, unsent; its slot of the cap is freed. */
export async function deleteWebhook(table: Table, caller: Principal, webhookId: string) {
  requireAdmin(caller, 'Deleting a webhook');
  return auditedCommit(
    table,
    caller.tenantId,
    { action: 'webhook.delete', actor: actorOf(caller), details: { webhook_id: webhookId } },
    (commit) => removeWebhook(caller, webhookId, commit),
  );
}

async function removeWebhook(caller: Principal, webhookId: string, commit: CommitAudited) {
  if (!WEBHOOK_ID_PATTERN.test(webhookId)) throw webhookNotFound(webhookId);
  // The endpoint and its slot together: an endpoint already gone is a 404 that frees no slot.
  await commit([webhookWrites.remove(caller.tenantId, webhookId), webhookWrites.freeSlot(caller.tenantId)]);
  return { webhook_id: webhookId, deleted: true as const };
}

/**
 * POST /webhooks/{id}/rotate-secret: a new secret signs from now on; the current one keeps
 * signing beside it for the overlap (each delivery then carries both signatures), so the receiver
 * can switch without losing a delivery. Secrets past their overlap are dropped in the same write.
 */
export async function rotateWebhookSecret(
  deps: Pick<WebhookDeps, 'table' | 'box'>,
  caller: Principal,
  webhookId: string,
  body: v.InferOutput<typeof RotateSecretSchema>,
) {
  requireAdmin(caller, 'Rotating a webhook secret');
  return auditedCommit(
    deps.table,
    caller.tenantId,
    {
      action: 'webhook.rotate-secret',
      actor: actorOf(caller),
      details: { webhook_id: webhookId, overlap_hours: body.overlap_hours ?? DEFAULT_OVERLAP_HOURS },
    },
    (commit) => rotateSecret(deps, caller, webhookId, body, commit),
  );
}

async function rotateSecret(
  deps: Pick<WebhookDeps, 'table' | 'box'>,
  caller: Principal,
  webhookId: string,
  body: v.InferOutput<typeof RotateSecretSchema>,
  commit: CommitAudited,
) {
  const current = await requireWebhook(deps.table, caller, webhookId);
  const now = new Date();
  const hours = body.overlap_hours ?? DEFAULT_OVERLAP_HOURS;
  const expiresAt = new Date(now.getTime() + hours * 3_600_000).toISOString();
  const secret = newSigningSecret();
  const kept = current.secrets
    .slice(0, 1)
    .map((old) => ({ ...old, expires_at: expiresAt }))
    .filter((old) => old.expires_at > now.toISOString());
  const secrets = [
    { sealed: await deps.box.seal(secret), created_at: now.toISOString(), expires_at: null },
    ...kept,
  ];
  const previousExpiresAt = kept.length > 0 ? expiresAt : null;
  await commit(
    [webhookWrites.rotateSecrets(caller.tenantId, webhookId, current.updated_at, secrets, now.toISOString())],
    { details: { updated_at: now.toISOString(), previous_secret_expires_at: previousExpiresAt } },
  );
  return {
    webhook: webhookView({ ...current, secrets, updated_at: now.toISOString() }, now),
    secret,
    previous_secret_expires_at: previousExpiresAt,
    detail:
      'The new signing secret is shown this once. Until previous_secret_expires_at each delivery is signed with both.',
  };
}

/** The secrets that sign a delivery now: the current one and any still in its overlap. */
export async function signingSecrets(deps: Pick<WebhookDeps, 'box'>, item: WebhookItem, now = new Date()) {
  const live = item.secrets.filter(
    (secret) => secret.expires_at === null || secret.expires_at > now.toISOString(),
  );
  return Promise.all(live.map((secret) => deps.box.open(secret.sealed)));
}

/** Every tenant's endpoints that hear an event type (a `lists.updated` for all tenants). */
export async function subscribedEndpoints(
  table: Table,
  tenantId: string,
  type: string,
): Promise<WebhookItem[]> {
  const items = await listWebhookItems(table, tenantId);
  return items.filter((item) => item.enabled && item.events.includes(type));
}

/** Reads one endpoint for the delivery function (no caller: the message names the tenant). */
export const endpointOf = getWebhook;
