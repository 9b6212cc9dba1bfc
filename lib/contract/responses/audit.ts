import * as v from 'valibot';
import { AUDIT_ACTIONS, AUDIT_ACTOR_ROLES, AUDIT_OUTCOMES } from '../../audit/trail.ts';
import { ROLES } from '../../tenancy/roles.ts';
import { cursor, timestamp } from './fields.ts';

/** Responses of /settings and /audit. */

/** GET and PATCH /settings (lib/tenancy/retention.ts). */
export const SettingsSchema = v.strictObject({
  retention_days: v.pipe(
    v.nullable(v.number()),
    v.description('Days a screen is kept after its last decision (or screening); null: until deleted'),
  ),
  retention_lock: v.pipe(
    v.boolean(),
    v.description('Decided screens cannot be deleted before the period ends; only operations lift it'),
  ),
  changed_at: v.nullable(timestamp),
  changed_by: v.nullable(
    v.strictObject({ user_id: v.string(), role: v.picklist([...ROLES, 'ops', 'system']) }),
  ),
});

export const sha256Hex = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('SHA-256, hex'));

/** One entry of a tenant's hash-chained audit trail (lib/audit/trail.ts, lib/audit/chain.ts). */
export const AuditEntrySchema = v.strictObject({
  seq: v.pipe(v.number(), v.description('Position in the tenant’s chain, from 1, no gaps')),
  entry_id: v.string(),
  tenant_id: v.string(),
  action: v.picklist(AUDIT_ACTIONS),
  outcome: v.pipe(
    v.picklist(AUDIT_OUTCOMES),
    v.description(
      '`done`/`refused`/`failed`: the action, written with it; `started` is written before an action that is more than a few writes (an export, a sync), whose outcome follows',
    ),
  ),
  started_seq: v.optional(
    v.pipe(
      v.number(),
      v.description('An outcome entry written before the chain writer: its `started` entry'),
    ),
  ),
  started_entry_id: v.optional(
    v.pipe(v.string(), v.description('An outcome entry: the `entry_id` of its `started` entry')),
  ),
  outcome_detail: v.optional(v.string()),
  actor: v.strictObject({ user_id: v.string(), role: v.picklist(AUDIT_ACTOR_ROLES) }),
  at: v.pipe(v.string(), v.description('ISO 8601 UTC with milliseconds')),
  request_id: v.pipe(
    v.nullable(v.string()),
    v.description('The X-Request-Id of the request that acted; null for the ops CLI and the scheduler'),
  ),
  target: v.strictObject({
    screen_id: v.optional(v.string()),
    client_id: v.optional(v.string()),
    user_id: v.optional(v.string()),
    run_id: v.optional(v.string()),
  }),
  details: v.pipe(
    v.record(v.string(), v.nullable(v.union([v.string(), v.number(), v.boolean()]))),
    v.description(
      'What was asked or changed: ids, dispositions, versions, counts; a note only as its SHA-256',
    ),
  ),
  prev_hash: v.pipe(sha256Hex, v.description('The previous entry’s hash; 64 zeros for seq 1')),
  hash: v.pipe(
    sha256Hex,
    v.description('SHA-256 of prev_hash, a line feed, and the entry without `hash` as canonical JSON'),
  ),
});

export const AuditPageSchema = v.strictObject({
  entries: v.array(AuditEntrySchema),
  next_cursor: cursor,
});
