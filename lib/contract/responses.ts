import * as v from 'valibot';
import { AUDIT_ACTIONS, AUDIT_ACTOR_ROLES, AUDIT_OUTCOMES } from '../audit/trail.ts';
import { RunCountsSchema } from '../batch/batch-record.ts';
import type { BatchEventData } from '../batch/progress-stream.ts';
import { BATCH_ID_PATTERN, CLIENT_ID_PATTERN, RUN_ID_PATTERN, SCREEN_ID_PATTERN } from '../common/ids.ts';
import { RISK_ORDER } from '../matcher/types.ts';
import { DISPOSITIONS } from '../screening/request.ts';
import {
  HISTORY_VALUES,
  SCREEN_ORIGINS,
  ActorSchema as StoredActorSchema,
  HistoryEntrySchema as StoredHistoryEntrySchema,
} from '../screening/screen-record.ts';
import { SubjectSchema as StoredSubjectSchema } from '../screening/subject.ts';
import { PLAN_IDS } from '../tenancy/plans.ts';
import { ROLES } from '../tenancy/roles.ts';
import { USER_STATUSES } from '../tenancy/tenants.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';

/**
 * The response bodies of the API as valibot schemas: the OpenAPI document (lib/openapi/document.ts)
 * converts them to JSON Schema, and the request pipeline (lib/http/handler.ts) types each use
 * case's result as the input of its route's declared response schema (lib/contract/operations.ts),
 * so the code cannot return a shape the document does not describe without failing the type
 * check. The contract tests then validate every body the HTTP tests receive against the document.
 *
 * These schemas describe, they do not transform: no transforms or checks, so the JSON Schema is an
 * exact rendering of them. Field meanings are the README's.
 */

const riskLevel = v.picklist(RISK_ORDER);
/** ISO 8601 with seconds and a zone (`Z` or `+00:00`): JSON Schema's `date-time`. */
const timestamp = v.pipe(v.string(), v.isoTimestamp());
const screenId = v.pipe(v.string(), v.regex(SCREEN_ID_PATTERN));
const clientId = v.pipe(v.string(), v.regex(CLIENT_ID_PATTERN));
const batchId = v.pipe(v.string(), v.regex(BATCH_ID_PATTERN));
const runId = v.pipe(v.string(), v.regex(RUN_ID_PATTERN));
const checkTypes = v.array(v.picklist(CHECK_TYPES));
const cursor = v.pipe(
  v.nullable(v.string()),
  v.description('Pass as `cursor` for the next page; null on the last page.'),
);

/**
 * The stored subject and actor shapes (parsed on the way out of the table), as strict response
 * objects: a field the API does not declare fails the contract tests.
 */
export const SubjectSchema = v.strictObject(StoredSubjectSchema.entries);
export const ActorSchema = v.strictObject(StoredActorSchema.entries);

/** Every error: a 4xx or 5xx answers `{ detail }`, never internals. */
export const ErrorBodySchema = v.pipe(
  v.strictObject({ detail: v.string() }),
  v.description('Every error response: what went wrong, naming the field for a 400.'),
);

export const HealthSchema = v.strictObject({
  status: v.literal('ok'),
  version: v.string(),
  timestamp,
});

export const AccountSchema = v.strictObject({
  user: v.strictObject({ user_id: v.string(), name: v.string(), role: v.picklist(ROLES) }),
  role: v.picklist(ROLES),
  tenant: v.strictObject({ tenant_id: v.string(), name: v.string() }),
  plan: v.strictObject({
    id: v.picklist(PLAN_IDS),
    name: v.string(),
    monthly_screens: v.nullable(v.number()),
    analyst_seats: v.nullable(v.number()),
    batch: v.boolean(),
    requests_per_second: v.pipe(
      v.number(),
      v.description('Fair use: authenticated requests per second, counted in 10-second windows.'),
    ),
    open_streams: v.pipe(
      v.number(),
      v.description('Fair use: streamed responses (batch streams, exports) open at once.'),
    ),
  }),
  usage: v.strictObject({
    month: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}$/)),
    screens_used: v.number(),
    screens_allowed: v.nullable(v.number()),
    screens_remaining: v.nullable(v.number()),
  }),
});

export const RotatedKeySchema = v.strictObject({
  api_key: v.string(),
  key_hint: v.string(),
  issued_at: timestamp,
  detail: v.string(),
});

export const DatabaseStatusSchema = v.strictObject({
  lists: v.array(
    v.strictObject({
      id: v.string(),
      name: v.string(),
      category: v.picklist(CHECK_TYPES),
      publisher: v.string(),
      entity_count: v.number(),
      individual_count: v.number(),
      linked_count: v.number(),
      source_date: v.pipe(v.string(), v.isoDate()),
      source_date_basis: v.string(),
      last_sync: timestamp,
      last_successful_sync: v.nullable(timestamp),
      last_attempted_sync: v.nullable(timestamp),
      sync_error: v.nullable(v.string()),
      synced_from: v.array(v.string()),
      age_days: v.number(),
      stale: v.boolean(),
      stale_reasons: v.array(v.string()),
      notes: v.array(v.string()),
      attribution: v.optional(v.string()),
    }),
  ),
  totals: v.strictObject({ lists: v.number(), entities: v.number(), individuals: v.number() }),
  last_sync: v.nullable(timestamp),
  stale: v.boolean(),
  stale_lists: v.array(v.string()),
  staleness_rule: v.string(),
  checked_at: timestamp,
});

const fieldExplanation = v.strictObject({
  status: v.picklist(['matched', 'near', 'mismatched', 'unknown']),
  detail: v.string(),
});

export const MatchSchema = v.strictObject({
  list_id: v.string(),
  list_name: v.string(),
  entity_id: v.string(),
  primary_name: v.string(),
  matched_name: v.string(),
  matched_input: v.picklist(['name', 'alias']),
  score: v.number(),
  name_score: v.number(),
  risk_level: riskLevel,
  dobs: v.array(v.string()),
  nationalities: v.array(v.string()),
  programmes: v.array(v.string()),
  explanation: v.strictObject({
    name: fieldExplanation,
    dob: fieldExplanation,
    nationality: fieldExplanation,
    location: fieldExplanation,
  }),
  url: v.optional(v.string()),
  listings: v.array(
    v.strictObject({
      list_id: v.string(),
      list_name: v.string(),
      entity_id: v.string(),
      primary_name: v.string(),
      programmes: v.array(v.string()),
      reference: v.optional(v.string()),
      listed_on: v.optional(v.string()),
      url: v.optional(v.string()),
      linked_by: v.string(),
    }),
  ),
  pep: v.optional(
    v.strictObject({
      tier: v.number(),
      tier_label: v.string(),
      category: v.string(),
      position: v.string(),
      current: v.boolean(),
    }),
  ),
});

export const SanctionsResultSchema = v.strictObject({
  risk_level: riskLevel,
  is_sanctioned: v.boolean(),
  matches: v.array(MatchSchema),
  narrative: v.string(),
});

export const PepResultSchema = v.strictObject({
  risk_level: riskLevel,
  is_pep: v.boolean(),
  tier: v.nullable(v.number()),
  tier_label: v.nullable(v.string()),
  category: v.nullable(v.string()),
  narrative: v.string(),
  matches: v.array(MatchSchema),
});

export const CriminalResultSchema = v.strictObject({
  risk_level: riskLevel,
  interpol_hits: v.array(MatchSchema),
  fbi_hits: v.array(MatchSchema),
  narrative: v.string(),
});

const historyEntryEntries = { ...StoredHistoryEntrySchema.entries, author: ActorSchema };
const decisionEntries = { ...historyEntryEntries, disposition: v.picklist(DISPOSITIONS) };

/** One decision of a screen's history, as stored. */
export const DecisionSchema = v.strictObject(decisionEntries);

export const DispositionSchema = v.strictObject({
  ...decisionEntries,
  awaiting_approval: v.boolean(),
  decision_version: v.nullable(v.number()),
  approved_decision: v.optional(DecisionSchema),
});

const matchRef = v.strictObject({
  list_id: v.string(),
  entity_id: v.string(),
  primary_name: v.string(),
  risk_level: riskLevel,
});

const AlertSchema = v.strictObject({
  previous_screen_id: v.nullable(screenId),
  baseline_screen_id: v.nullable(screenId),
  since: v.nullable(timestamp),
  raised_by_screen_id: v.nullable(screenId),
  risk_before: v.nullable(riskLevel),
  risk_after: riskLevel,
  matches_added: v.array(matchRef),
  matches_removed: v.array(matchRef),
  matches_changed: v.array(matchRef),
  reasons: v.array(v.string()),
});

const screenSummaryEntries = {
  screen_id: screenId,
  risk_level: riskLevel,
  subject: SubjectSchema,
  screened_at: timestamp,
  types: checkTypes,
  created_by: ActorSchema,
  disposition: v.nullable(DispositionSchema),
  alert_since: v.nullable(timestamp),
};

export const ScreenSummarySchema = v.strictObject(screenSummaryEntries);

const described = <TSchema extends v.GenericSchema>(schema: TSchema, text: string) =>
  v.pipe(schema, v.description(text));
const numbersOf = <const K extends string>(names: readonly K[]) =>
  v.strictObject(
    Object.fromEntries(names.map((name) => [name, v.number()])) as Record<K, v.NumberSchema<undefined>>,
  );

/** What a screen was matched against and with: stored when the screen is made (lib/screening/receipt.ts). */
export const ReceiptSchema = v.strictObject({
  snapshot: described(
    v.strictObject({
      version: described(
        v.string(),
        'The snapshot store’s version (a local file name, an S3 object version) of the watchlist snapshot matched against, or `bundled-<hash>` for the snapshot shipped with the code. `POST /screens/{screen_id}/replay` reads this version back.',
      ),
      built_at: described(timestamp, 'When the snapshot was compiled.'),
      lists: described(
        v.array(
          v.strictObject({
            id: v.string(),
            source_date: described(v.string(), 'The publisher’s date of the list’s data.'),
            synced_at: described(timestamp, 'When the list’s data was parsed into a snapshot.'),
            content_hash: described(
              v.nullable(v.string()),
              'SHA-256 of the publisher’s files the sync downloaded; null for data bundled with the code.',
            ),
            individual_count: described(v.number(), 'Individuals screened on the list.'),
          }),
        ),
        'Every list of the snapshot, as it stood when the screen was made.',
      ),
    }),
    'The watchlist snapshot the screen was matched against.',
  ),
  matcher: described(
    v.strictObject({
      version: described(
        v.string(),
        '`matcher-<hash>`: a hash of the matching code’s sources (lib/matcher, the list modules it reads, the romanisation packages’ versions).',
      ),
      config: described(
        v.strictObject({
          check_types: described(checkTypes, 'The check types run.'),
          max_matches_per_check: described(v.number(), 'Matches returned per check type at most.'),
          name_bands: described(
            numbersOf(['strong', 'partial', 'reporting_floor']),
            'Name similarity bands; a listed person below `reporting_floor` is not reported.',
          ),
          candidates: described(
            numbersOf(['shortlist_per_check', 'min_evidence_share', 'opening_weight']),
            'Candidate selection: which listed names are scored in full.',
          ),
          token_weights: described(
            numbersOf(['particle', 'initial', 'patronymic', 'min_token', 'common_given', 'unseen']),
            'Rarity weights of name parts.',
          ),
          corroboration_score_adjust: described(
            numbersOf(['matched', 'near', 'unknown', 'mismatched']),
            'What a corroborating field adds to a match’s score, by its status (orders matches, never decides the level).',
          ),
        }),
        'The effective matching configuration.',
      ),
    }),
    'The matching code and configuration the screen was made with.',
  ),
});

export const ScreenSchema = v.strictObject({
  ...screenSummaryEntries,
  sanctions_result: v.nullable(SanctionsResultSchema),
  pep_result: v.nullable(PepResultSchema),
  criminal_result: v.nullable(CriminalResultSchema),
  origin: v.picklist(SCREEN_ORIGINS),
  client_id: v.nullable(clientId),
  alert: v.nullable(AlertSchema),
  superseded_by: v.nullable(screenId),
  receipt: described(
    v.nullable(ReceiptSchema),
    'The snapshot and matcher the screen was made with; null on screens stored before receipts were recorded.',
  ),
});

const replayDifferences = v.strictObject({
  risk_level: described(
    v.nullable(v.strictObject({ stored: riskLevel, now: riskLevel })),
    'The screen’s risk level as stored and as re-run; null when they are the same.',
  ),
  matches_added: described(
    v.array(matchRef),
    'Listed entries matched by the re-run and not in the stored screen.',
  ),
  matches_removed: described(
    v.array(matchRef),
    'Listed entries in the stored screen the re-run does not match.',
  ),
  matches_changed: described(
    v.array(matchRef),
    'Matches on entries whose listing says something else in the re-run’s lists (names, dates of birth, nationalities, programmes, office).',
  ),
  matches_rescored: described(
    v.array(matchRef),
    'Matches on the same listing with another score, risk level or explanation.',
  ),
  other_fields: described(
    v.array(v.string()),
    'Paths of any other result field that differs (narratives, flags), at most 20.',
  ),
});

const replayOutcomeEntries = {
  snapshot_version: described(v.string(), 'The snapshot the subject was re-run on.'),
  matcher_version: described(v.string(), 'The running matcher’s version.'),
  risk_level: riskLevel,
  identical: described(
    v.boolean(),
    'The re-run’s result equals the stored result in every field (risk level, every match with its score and explanation, narratives).',
  ),
  differences: replayDifferences,
};

export const ScreenReplaySchema = v.strictObject({
  screen_id: screenId,
  receipt: ReceiptSchema,
  replayed: described(
    v.strictObject({
      ...replayOutcomeEntries,
      same_matcher: described(
        v.boolean(),
        'The running matcher has the receipt’s version and configuration. When false, a difference may come from the code rather than the lists.',
      ),
      same_lists: described(
        v.boolean(),
        'The re-run’s lists are the receipt’s: same ids, source dates, sync times, content hashes and counts.',
      ),
    }),
    'The stored subject and check types re-run on the snapshot the receipt names, with the running matcher.',
  ),
  today: described(
    v.strictObject(replayOutcomeEntries),
    'The stored subject and check types re-run on the lists in force now.',
  ),
});

export const ScreenResultSchema = v.strictObject({ ...ScreenSchema.entries, skipped: v.boolean() });

export const ScreenPageSchema = v.strictObject({
  screens: v.array(ScreenSummarySchema),
  next_cursor: cursor,
});

const entryLink = v.strictObject({
  version: v.number(),
  disposition: v.picklist(HISTORY_VALUES),
  author: ActorSchema,
  at: timestamp,
});

export const ScreenHistorySchema = v.strictObject({
  screen_id: screenId,
  disposition: v.nullable(DispositionSchema),
  history: v.array(
    v.strictObject({
      ...historyEntryEntries,
      version: v.number(),
      approves: v.optional(entryLink),
      superseded_by: v.optional(entryLink),
      approved_by: v.optional(ActorSchema),
      approved_at: v.optional(timestamp),
      withdraws_approval: v.optional(entryLink),
    }),
  ),
});

export const ScreenDeletedSchema = v.strictObject({ screen_id: screenId, deleted: v.literal(true) });

const clientProfileEntries = {
  client_id: clientId,
  reference: v.nullable(v.string()),
  subject: SubjectSchema,
  types: checkTypes,
  status: v.picklist(['active', 'stopped']),
  created_at: timestamp,
  created_by: ActorSchema,
  last_screen_id: screenId,
  last_screened_at: timestamp,
  risk_level: riskLevel,
  rescreen_interval_days: v.number(),
  rescreen_interval_custom: v.boolean(),
  next_due_at: v.nullable(timestamp),
  stopped_at: v.optional(timestamp),
  stopped_by: v.optional(ActorSchema),
};

export const ClientProfileSchema = v.strictObject(clientProfileEntries);

export const ClientPageSchema = v.strictObject({
  clients: v.array(ClientProfileSchema),
  next_cursor: cursor,
});

export const ClientDetailSchema = v.strictObject({
  ...clientProfileEntries,
  open_alert: v.nullable(
    v.strictObject({
      ...AlertSchema.entries,
      screen_id: screenId,
    }),
  ),
  screens: v.array(ScreenSummarySchema),
  next_cursor: cursor,
});

export const ScreenedSubjectsPageSchema = v.strictObject({
  subjects: v.array(
    v.strictObject({
      subject: SubjectSchema,
      types: checkTypes,
      latest_screen: v.strictObject({ screen_id: screenId, risk_level: riskLevel, screened_at: timestamp }),
      screen_count: v.number(),
      latest_disposition: v.nullable(
        v.strictObject({
          disposition: v.picklist(DISPOSITIONS),
          author: ActorSchema,
          at: timestamp,
          screen_id: screenId,
        }),
      ),
      last_activity_at: timestamp,
    }),
  ),
  next_cursor: cursor,
});

const runStartedEntries = {
  run_id: runId,
  status: v.picklist(['running', 'finished']),
  due: v.number(),
  queued: v.number(),
  skipped_quota: v.number(),
};

export const RescreenRunStartedSchema = v.strictObject({
  ...runStartedEntries,
  started: v.pipe(
    v.boolean(),
    v.description(
      'True when this trigger started the run; false when the tenant’s run was already running: the answer names that run, and this trigger found, charged and queued nothing.',
    ),
  ),
});

export const RescreenRunSchema = v.strictObject({
  ...runStartedEntries,
  already_running: v.number(),
  started_at: timestamp,
  started_by: ActorSchema,
  trigger: RunCountsSchema.entries.trigger,
  finished: v.number(),
  changed: v.array(
    v.strictObject({
      client_id: clientId,
      reference: v.nullable(v.string()),
      screen_id: screenId,
      previous_screen_id: v.nullable(screenId),
      risk_before: v.nullable(riskLevel),
      risk_after: riskLevel,
      matches_added: v.number(),
      matches_changed: v.number(),
      alert: v.picklist(['raised', 'still_open']),
      alert_since: v.nullable(timestamp),
    }),
  ),
});

export const UserSchema = v.strictObject({
  user_id: v.string(),
  name: v.string(),
  role: v.picklist(ROLES),
  status: v.picklist(USER_STATUSES),
  key_hint: v.nullable(v.string()),
  key_issued_at: v.nullable(timestamp),
  key_issued_by: v.nullable(v.string()),
  key_lineage: v.array(v.string()),
  created_at: timestamp,
  disabled_at: v.optional(timestamp),
  disabled_by: v.optional(v.string()),
});

export const UserListSchema = v.strictObject({ users: v.array(UserSchema) });

/** A user with a key shown this once (added, or their key revoked). */
export const UserWithKeySchema = v.strictObject({
  user: UserSchema,
  api_key: v.string(),
  detail: v.string(),
});

export const DisabledUserSchema = v.strictObject({ user: UserSchema });

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

const sha256Hex = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('SHA-256, hex'));

/** One entry of a tenant's hash-chained audit trail (lib/audit/trail.ts, lib/audit/chain.ts). */
export const AuditEntrySchema = v.strictObject({
  seq: v.pipe(v.number(), v.description('Position in the tenant’s chain, from 1, no gaps')),
  entry_id: v.string(),
  tenant_id: v.string(),
  action: v.picklist(AUDIT_ACTIONS),
  outcome: v.pipe(
    v.picklist(AUDIT_OUTCOMES),
    v.description('`started` is written before the action, `done`/`refused`/`failed` after it'),
  ),
  started_seq: v.optional(v.pipe(v.number(), v.description('An outcome entry: its `started` entry'))),
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

const exportPeriodEntries = {
  tenant_id: v.string(),
  from: v.pipe(v.string(), v.description('Start of the period, inclusive (ISO 8601 UTC)')),
  to: v.pipe(v.string(), v.description('End of the period, exclusive (ISO 8601 UTC)')),
  format: v.picklist(['ndjson', 'csv']),
  exported_at: v.string(),
  count: v.pipe(v.number(), v.description('Records exported before this one')),
  complete: v.pipe(
    v.boolean(),
    v.description(
      'False when the export stopped at the function’s time limit; `detail` says where to resume',
    ),
  ),
  detail: v.optional(v.string()),
};

const neighbour = <T extends v.ObjectEntries>(entries: T) =>
  v.nullable(v.strictObject({ seq: v.number(), at: v.string(), ...entries }));

/** The last record of GET /audit/export (lib/audit/export-format.ts). */
export const AuditExportEndSchema = v.strictObject({
  type: v.literal('export_end'),
  export: v.literal('audit'),
  ...exportPeriodEntries,
  first_seq: v.nullable(v.number()),
  last_seq: v.nullable(v.number()),
  prev_hash_before_first: v.pipe(
    v.nullable(sha256Hex),
    v.description('The prev_hash the first exported entry carries: the hash of the entry before the period'),
  ),
  head_hash: v.pipe(v.nullable(sha256Hex), v.description('The last exported entry’s hash')),
  entry_before: v.pipe(
    neighbour({ hash: sha256Hex }),
    v.description('The last entry before the period (null when the period starts at entry 1)'),
  ),
  entry_after: v.pipe(
    neighbour({ prev_hash: sha256Hex }),
    v.description('The first entry at or after `to` (null when the period reaches the chain head)'),
  ),
  chain_head_seq: v.pipe(v.number(), v.description('The trail’s last entry when the export began')),
  chain_head_hash: v.nullable(sha256Hex),
});

/** The last record of GET /screens/export (lib/screening/export.ts). */
export const ScreensExportEndSchema = v.strictObject({
  type: v.literal('export_end'),
  export: v.literal('screens'),
  ...exportPeriodEntries,
  first_screen_id: v.nullable(screenId),
  last_screen_id: v.nullable(screenId),
  sha256: v.pipe(
    sha256Hex,
    v.description('SHA-256 of every screen record’s canonical JSON followed by a line feed, in export order'),
  ),
});

/** One screen of GET /screens/export: the screen and its whole history. */
export const ScreenExportRecordSchema = v.strictObject({
  ...ScreenSchema.entries,
  history: ScreenHistorySchema.entries.history,
});

/** Written instead of export_end when the export failed part way (the file is incomplete). */
export const ExportErrorSchema = v.strictObject({ type: v.literal('export_error'), detail: v.string() });

/** The Server-Sent Events of the batch streams, by event name. */
export const BatchEventSchemas = {
  start: v.strictObject({ batch_id: batchId, total: v.number() }),
  progress: v.strictObject({
    batch_id: batchId,
    index: v.number(),
    completed: v.number(),
    total: v.number(),
    screen_id: screenId,
    risk_level: riskLevel,
    skipped: v.boolean(),
    client_id: v.optional(clientId),
  }),
  error: v.strictObject({ batch_id: batchId, index: v.number(), detail: v.string() }),
  complete: v.strictObject({
    batch_id: batchId,
    total: v.number(),
    completed: v.number(),
    failed: v.number(),
    risk_counts: v.strictObject({
      CRITICAL: v.number(),
      HIGH: v.number(),
      MEDIUM: v.number(),
      LOW: v.number(),
      CLEAR: v.number(),
    }),
    detail: v.optional(v.string()),
  }),
};

/**
 * The batch stream's events (lib/batch/progress-stream.ts `BatchEventData`) are what the document
 * describes: an event whose data the schema would not accept is a type error here.
 */
export const BATCH_EVENTS_DESCRIBED = {
  start: true,
  progress: true,
  error: true,
  complete: true,
} as const satisfies {
  [K in keyof BatchEventData]: BatchEventData[K] extends v.InferInput<(typeof BatchEventSchemas)[K]>
    ? true
    : never;
};

/** GET /openapi.json: this document (OpenAPI 3.1); its own schema is the OpenAPI specification's. */
export const OpenApiDocumentSchema = v.looseObject({
  openapi: v.string(),
  info: v.looseObject({ title: v.string(), version: v.string() }),
  paths: v.record(v.string(), v.looseObject({})),
});
