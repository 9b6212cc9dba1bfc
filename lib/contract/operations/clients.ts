import { ListQuerySchema } from '../../common/fields.ts';
import { ClientListQuerySchema } from '../../monitoring/clients-read.ts';
import { AlertListQuerySchema } from '../../monitoring/monitoring-lists.ts';
import { ClientRequestSchema } from '../../monitoring/register-client.ts';
import {
  AlertPageSchema,
  ClientConflictSchema,
  ClientDetailSchema,
  ClientPageSchema,
  ClientProfileSchema,
  RescreenRunPageSchema,
  RescreenRunSchema,
  RescreenRunStartedSchema,
  ScreenedSubjectsPageSchema,
} from '../responses.ts';
import type { RouteId } from '../routes.ts';
import {
  accepted,
  created,
  json,
  listQueryErrors,
  notFound,
  type Operation,
  requestExample,
  starting,
} from './shared.ts';

/** The contract of the monitored-client and rescreen routes (lib/contract/operations.ts). */
export const clientsOperations = {
  'client-register': {
    body: ClientRequestSchema,
    requestExample: requestExample(ClientRequestSchema, {
      name: 'Jane Quillonby',
      dob: '1980-02-29',
      reference: 'CUST-0001',
    }),
    idempotent: true,
    success: created(ClientProfileSchema, 'The client, screened and under monitoring'),
    errors: {
      409: 'Another monitored client of the tenant has this reference, or is this person as the matcher reads one (the same name, whatever its case, accents, punctuation or word order, and no date of birth or nationality that tells them apart: each the same, or left out by one of the two): `existing_client_id` names it, and the `detail` says how to give that client a date of birth or nationality; nothing is screened or charged',
      429: 'The monthly screen limit is reached; nothing is stored or charged',
      ...starting,
    },
    errorBodies: { 409: ClientConflictSchema },
  },
  'clients-list': {
    query: ClientListQuerySchema,
    success: json(ClientPageSchema, 'A page of client profiles, newest first'),
    errors: { 400: 'A limit, cursor, risk_level or reference that is not valid' },
  },
  'clients-screened': {
    query: ListQuerySchema,
    success: json(ScreenedSubjectsPageSchema, 'Every subject ever screened, most recent activity first'),
    errors: listQueryErrors,
  },
  'clients-reviewed': {
    query: ListQuerySchema,
    success: json(ScreenedSubjectsPageSchema, 'Subjects with a disposition, most recent decision first'),
    errors: listQueryErrors,
  },
  'client-get': {
    query: ListQuerySchema,
    success: json(ClientDetailSchema, 'The client profile and a page of its screens'),
    errors: { ...listQueryErrors, ...notFound('client') },
  },
  'client-stop': {
    success: json(
      ClientProfileSchema,
      'The client, no longer monitored (stopping again answers the same); its screens stay',
    ),
    errors: {
      ...notFound('client'),
      403: 'An analyst stopping a client someone else registered',
    },
  },
  'rescreen-trigger': {
    success: accepted(
      RescreenRunStartedSchema,
      'The run, started (its clients are re-screened in the background)',
    ),
  },
  'rescreen-runs': {
    query: ListQuerySchema,
    success: json(
      RescreenRunPageSchema,
      'The tenant’s rescreen runs of the last week (scheduled, manual, list change), newest first',
    ),
    errors: listQueryErrors,
  },
  'alerts-list': {
    query: AlertListQuerySchema,
    success: json(
      AlertPageSchema,
      'The tenant’s monitoring alerts, newest screen first: by default the open ones, one per client. The page reads at most 2000 screens: it may hold fewer rows than `limit` (even none) with a `next_cursor` to read on from',
    ),
    errors: { 400: 'A limit, cursor, status or since that is not valid' },
  },
  'rescreen-run': {
    success: json(RescreenRunSchema, 'The run’s counts, progress and the clients whose outcome changed'),
    errors: notFound('rescreen run'),
  },
} as const satisfies Partial<Record<RouteId, Operation>>;
