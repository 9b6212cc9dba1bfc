import {
  DeleteQuerySchema,
  DisposeRequestSchema,
  MoreMatchesQuerySchema,
  ScreenRequestSchema,
} from '../../screening/request.ts';
import { FILTERED_READ_LIMIT, ScreenListQuerySchema } from '../../screening/screen-filters.ts';
import {
  MoreMatchesPageSchema,
  ScreenDeletedSchema,
  ScreenHistorySchema,
  ScreenPageSchema,
  ScreenReplaySchema,
  ScreenResultSchema,
  ScreenSchema,
} from '../responses.ts';
import type { RouteId } from '../routes.ts';
import { adminsOnly, json, notFound, type Operation, requestExample, starting } from './shared.ts';

const filteredListErrors = {
  400: 'A limit outside 1 to 200, a cursor this list did not issue, a filter value that is not valid (the detail names the parameter and what it takes), or a query parameter the route does not take',
};
const filteredPage = `A filtered page reads at most ${FILTERED_READ_LIMIT} screens: it may hold fewer rows than \`limit\` (even none) with a \`next_cursor\` to read on from`;

/** The contract of the screen routes (lib/contract/operations.ts). */
export const screensOperations = {
  screen: {
    body: ScreenRequestSchema,
    requestExample: requestExample(ScreenRequestSchema, {
      name: 'Vladimir Putin',
      dob: '1952-10-07',
      nationality: 'Russian',
      types: 'sanctions,pep',
    }),
    idempotent: true,
    success: json(ScreenResultSchema, 'The screen (`skipped`: an earlier screen inside the rescreen window)'),
    errors: {
      410: 'A repeat of an `Idempotency-Key` whose first response returned a screen deleted since; nothing is screened or charged',
      429: 'The monthly screen limit is reached; nothing is stored or charged',
      ...starting,
    },
  },
  'screens-list': {
    query: ScreenListQuerySchema,
    success: json(ScreenPageSchema, `A page of screens, newest first. ${filteredPage}`),
    errors: filteredListErrors,
  },
  'screens-pending': {
    query: ScreenListQuerySchema,
    success: json(ScreenPageSchema, `A page of screens with no disposition, newest first. ${filteredPage}`),
    errors: filteredListErrors,
  },
  'screen-get': { success: json(ScreenSchema, 'The screen with all match data'), errors: notFound('screen') },
  'screen-history': {
    success: json(ScreenHistorySchema, 'The disposition in force and every history entry, oldest first'),
    errors: notFound('screen'),
  },
  'screen-replay': {
    success: json(
      ScreenReplaySchema,
      'The screen re-run on the snapshot its receipt names and on today’s lists (admins only; recorded on the audit trail as `screen.replay`); nothing is stored on the screen or charged',
    ),
    errors: {
      ...adminsOnly,
      ...notFound('screen'),
      409: 'The screen was stored before screens recorded their receipt: there is no record of its lists to replay it on',
      410: 'The snapshot the receipt names is no longer kept (past the retention period, or a bundled snapshot an earlier release shipped); the detail names the version and the rule',
      ...starting,
    },
  },
  'screen-matches': {
    query: MoreMatchesQuerySchema,
    success: json(
      MoreMatchesPageSchema,
      'A page of the check’s matches beyond the strongest 10 the screen stores, strongest first, computed again on the snapshot and under the policy version its receipt names. A read: nothing is stored, charged or audited. A check that was not cut answers an empty page',
    ),
    errors: {
      ...notFound('screen'),
      400: 'A check other than sanctions, pep or criminal, a limit outside 1 to 200, or a cursor this screen’s check did not issue',
      409: 'The screen did not run the check, was stored before screens recorded their receipt, or names a policy version the tenant never adopted; the detail says which',
      410: 'The snapshot the receipt names is no longer kept (past the retention period, or a bundled snapshot an earlier release shipped); the detail names the version and the rule',
      ...starting,
    },
  },
  'screen-dispose': {
    body: DisposeRequestSchema,
    requestExample: requestExample(DisposeRequestSchema, {
      disposition: 'needs_review',
      note: 'Check the passport copy',
    }),
    success: json(ScreenHistorySchema, 'The disposition recorded, with the history'),
    errors: {
      ...notFound('screen'),
      403: 'An analyst approving, or an admin approving a decision they made or whose author’s key they issued or could hold, or whose author issued theirs (four eyes)',
      409: 'A disposition is already in force (send `override`), the approval names another decision, an approval without `approves_version` is ambiguous (the detail names the version to send), or the history is full',
    },
  },
  'screen-delete': {
    query: DeleteQuerySchema,
    success: json(ScreenDeletedSchema, 'The screen, its history and notes are gone for good'),
    errors: {
      ...notFound('screen'),
      400: 'A decided screen without the `reason` the tenant’s policy requires',
      403: 'An analyst deleting a screen someone else created, or (under the tenant’s retention lock or its policy’s lock on decided screens) a decided screen before its period ends; the detail names the date it becomes deletable',
      409: 'The screen changed (was decided) while it was being deleted; send the request again',
    },
  },
} as const satisfies Partial<Record<RouteId, Operation>>;
