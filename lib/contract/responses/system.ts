import * as v from 'valibot';
import { CHECK_TYPES } from '../../watchlists/types.ts';
import { problemEntries, timestamp } from './fields.ts';

/** Responses of the system routes: /health, /dbstatus, /openapi.json. */

export const HealthSchema = v.strictObject({
  status: v.literal('ok'),
  version: v.string(),
  timestamp,
});

/** /health while the process is still loading the watchlists (503, with Retry-After). */
export const HealthStartingSchema = v.pipe(
  v.strictObject({
    version: v.string(),
    timestamp,
    loading: v.pipe(
      v.string(),
      v.description(
        'What the process is doing now, e.g. `compiling the watchlist snapshot: 3 of 15 lists parsed`',
      ),
    ),
    starting_for_seconds: v.pipe(v.number(), v.integer(), v.minValue(0)),
    ...problemEntries,
    // The contract's `status` word, not the number the other errors repeat.
    status: v.literal('starting'),
  }),
  v.description('The service is starting: screens wait for it or are answered 503 until /health says `ok`.'),
);

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
      source_date: v.pipe(
        v.nullable(v.pipe(v.string(), v.isoDate())),
        v.description(
          'The date of the list’s data as its publisher states it; null when unknown (the list is then stale). Never the date it was fetched',
        ),
      ),
      source_date_basis: v.string(),
      last_sync: timestamp,
      last_successful_sync: v.nullable(timestamp),
      last_attempted_sync: v.nullable(timestamp),
      sync_error: v.nullable(v.string()),
      synced_from: v.array(v.string()),
      age_days: v.pipe(
        v.nullable(v.number()),
        v.description('Days since `source_date`; null when it is unknown'),
      ),
      age_limit_days: v.pipe(
        v.number(),
        v.description('Days after `source_date` at which the list is stale (its category’s limit)'),
      ),
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

/** GET /openapi.json: this document (OpenAPI 3.1); its own schema is the OpenAPI specification's. */
export const OpenApiDocumentSchema = v.looseObject({
  openapi: v.string(),
  info: v.looseObject({ title: v.string(), version: v.string() }),
  paths: v.record(v.string(), v.looseObject({})),
});
