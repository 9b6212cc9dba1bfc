import type * as v from 'valibot';
import { BatchEventSchemas } from '../responses.ts';

/** What one route's contract holds (lib/contract/operations.ts), and the helpers the per-resource maps share. */

export interface Operation {
  body?: v.GenericSchema;
  query?: v.GenericSchema;
  /**
   * The success answer: a JSON body, (streamed routes) the events of an SSE stream, or (the
   * reference page and its files) content of the media types listed, or (the exports) an NDJSON or
   * CSV file whose records are those listed by type (`entry`/`screen`: the lines without a `type`).
   */
  success:
    | { status: 200 | 201 | 202; description: string; schema: v.GenericSchema | null }
    | { status: 200; description: string; events: Readonly<Record<string, v.GenericSchema>> }
    | { status: 200; description: string; mediaTypes: readonly string[] }
    | { status: 200; description: string; exportRecords: Readonly<Record<string, v.GenericSchema>> };
  /** Error statuses particular to the route, with when each happens. */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** The body of an error status whose answer is not the `{ detail }` of every error (/health's 503). */
  errorBodies?: Partial<Record<ErrorStatus, v.GenericSchema>>;
  /**
   * A request body the route accepts as it stands (2xx on a fresh local stack:
   * test/openapi/request-examples.test.ts): the reference page's `Try it out` starts from it.
   */
  requestExample?: unknown;
  /** Whether the route honours an `Idempotency-Key` header (lib/http/idempotency.ts). */
  idempotent?: boolean;
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 500 | 503;

/** A request body example, type-checked as an input of the body's schema. */
export const requestExample = <const TSchema extends v.GenericSchema>(
  _schema: TSchema,
  example: v.InferInput<TSchema>,
) => example;

/** A JSON success answer; the status is a literal (not inferred from `Operation`), so results are typed by it. */
export const json = <const TSchema extends v.GenericSchema>(schema: TSchema, description: string) => ({
  status: 200 as const,
  description,
  schema,
});
export const created = <const TSchema extends v.GenericSchema>(schema: TSchema, description: string) => ({
  ...json(schema, description),
  status: 201 as const,
});
export const accepted = <const TSchema extends v.GenericSchema>(schema: TSchema, description: string) => ({
  ...json(schema, description),
  status: 202 as const,
});

export const batchEvents = {
  status: 200 as const,
  description:
    'Server-Sent Events: `start` once, one `progress` per subject as it completes (completion order), `error` for a subject that failed for good, `complete` once, last; comment lines keep an idle connection open.',
  events: BatchEventSchemas,
};

export const exportErrors = {
  403: 'The caller is not an admin',
};

export const notFound = (what: string) => ({ 404: `No ${what} with this id in the caller's tenant` });
export const adminsOnly = { 403: 'The caller is not an admin' };
export const listQueryErrors = { 400: 'A limit outside 1 to 200, or a cursor this list did not issue' };
/** A route that screens (or reads the lists) on a process still loading them (lib/common/readiness.ts). */
export const starting = {
  503: 'The service is starting and the watchlists did not finish loading within the wait; nothing is stored or charged. Retry after `Retry-After` seconds',
};
export const batchErrors = {
  429: 'The batch does not fit in this month’s remaining quota; nothing is charged',
};
