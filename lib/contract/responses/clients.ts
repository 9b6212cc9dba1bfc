import * as v from 'valibot';
import { RunCountsSchema } from '../../batch/batch-table.ts';
import { DISPOSITIONS } from '../../screening/request.ts';
import {
  ActorSchema,
  checkTypes,
  clientId,
  cursor,
  problemEntries,
  riskLevel,
  runId,
  SubjectSchema,
  screenId,
  timestamp,
} from './fields.ts';
import { AlertSchema, ScreenSummarySchema } from './screens.ts';

/** Responses of the monitored-client routes: profiles, pages, screened subjects, rescreen runs. */

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

/** POST /clients' 409: the client that already holds the reference or the person, by id. */
export const ClientConflictSchema = v.pipe(
  v.strictObject({
    ...problemEntries,
    existing_client_id: v.optional(
      v.pipe(
        clientId,
        v.description(
          'The monitored client that already has this reference, or is this person (the same name as the matcher reads it, and no date of birth or nationality that tells them apart). Absent when the 409 is an Idempotency-Key still running.',
        ),
      ),
    ),
  }),
  v.description('What conflicts, naming the existing client; `existing_client_id` carries its id.'),
);

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
  failed: v.pipe(
    v.number(),
    v.description('Of the finished clients, those not re-screened (refunded); `failed_clients` says why'),
  ),
  failed_clients: v.array(
    v.strictObject({
      client_id: clientId,
      reason: v.pipe(
        v.picklist(['monitoring_stopped', 'refused', 'error']),
        v.description(
          '`monitoring_stopped`: stopped after the run found it due; `refused`: the detail says why; `error`: its re-screen kept failing (it stays due, the next run takes it)',
        ),
      ),
      detail: v.string(),
    }),
  ),
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

/** A row of GET /alerts: the screen carrying the alert (a screen row), its status and when it was raised. */
export const AlertRowSchema = v.strictObject({
  ...ScreenSummarySchema.entries,
  status: v.pipe(
    v.picklist(['open', 'closed']),
    v.description(
      '`open` until somebody records a settled decision on a screen carrying it (`needs_review` or a decision awaiting approval leaves it open); `closed` after',
    ),
  ),
  raised_at: v.pipe(
    timestamp,
    v.description('When a re-screen first raised the alert (kept as it is carried to newer screens)'),
  ),
});

export const AlertPageSchema = v.strictObject({
  alerts: v.array(AlertRowSchema),
  next_cursor: cursor,
});

const { failed_clients: _failedClients, changed: _changed, ...runSummaryEntries } = RescreenRunSchema.entries;

/** A row of GET /clients/rescreen/runs: a run's counts (its GET adds the clients that changed or failed). */
export const RescreenRunSummarySchema = v.strictObject(runSummaryEntries);

export const RescreenRunPageSchema = v.strictObject({
  runs: v.array(RescreenRunSummarySchema),
  next_cursor: cursor,
});
