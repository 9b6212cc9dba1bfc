import { BatchResultsQuerySchema } from '../../batch/batches-read.ts';
import { BatchRequestSchema } from '../../batch/request.ts';
import { ListQuerySchema } from '../../common/fields.ts';
import { BatchClientsRequestSchema } from '../../monitoring/register-client.ts';
import { BatchDetailSchema, BatchPageSchema, BatchResultRowSchema } from '../responses.ts';
import type { RouteId } from '../routes.ts';
import {
  batchErrors,
  batchEvents,
  json,
  listQueryErrors,
  notFound,
  type Operation,
  requestExample,
} from './shared.ts';

/** The contract of the batch streams (lib/contract/operations.ts). */
export const batchOperations = {
  'batch-stream': {
    body: BatchRequestSchema,
    requestExample: requestExample(BatchRequestSchema, {
      subjects: [
        { name: 'Vladimir Putin', nationality: 'Russian' },
        { name: 'Jane Doe', dob: '1980-02-29', location: 'Leeds' },
      ],
      types: 'sanctions,pep',
    }),
    idempotent: true,
    success: batchEvents,
    errors: batchErrors,
  },
  'batch-clients-stream': {
    body: BatchClientsRequestSchema,
    requestExample: requestExample(BatchClientsRequestSchema, {
      subjects: [
        { name: 'Maria Example', dob: '1975-06-01', reference: 'CUST-0100' },
        { name: 'Omar Example', nationality: 'Egyptian', reference: 'CUST-0101' },
      ],
    }),
    idempotent: true,
    success: batchEvents,
    // A subject whose reference another client holds is an `error` event of the stream, not a 409.
    errors: batchErrors,
  },
  'batch-reattach': { success: batchEvents, errors: notFound('batch') },
  'batches-list': {
    query: ListQuerySchema,
    success: json(
      BatchPageSchema,
      'The tenant’s batches of the last week (batch records are kept a week), newest first',
    ),
    errors: listQueryErrors,
  },
  'batch-get': {
    success: json(BatchDetailSchema, 'The batch’s counts and its screens per risk level so far'),
    errors: notFound('batch'),
  },
  'batch-results': {
    query: BatchResultsQuerySchema,
    success: {
      status: 200,
      description:
        'Every subject of the batch in request order with its outcome and strongest match: NDJSON, one row a line, or CSV (a header row; a cell a spreadsheet would run as a formula starts with a single quote)',
      exportRecords: { row: BatchResultRowSchema },
    },
    errors: { ...notFound('batch'), 400: 'A format other than csv or ndjson' },
  },
} as const satisfies Partial<Record<RouteId, Operation>>;
