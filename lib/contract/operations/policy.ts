import { ListQuerySchema } from '../../common/fields.ts';
import { SERVICE_POLICY } from '../../policy/policy.ts';
import { ProposalRequestSchema } from '../../policy/policy-proposals.ts';
import {
  FalsePositiveRevokedSchema,
  PolicySchema,
  ProposalPageSchema,
  ProposalSchema,
  RememberedFalsePositivePageSchema,
} from '../responses.ts';
import type { RouteId } from '../routes.ts';
import {
  accepted,
  adminsOnly,
  json,
  listQueryErrors,
  notFound,
  type Operation,
  requestExample,
} from './shared.ts';

/** The contract of the tenant tuning routes (docs/policies.md; lib/contract/operations.ts). */
export const policyOperations = {
  'policy-get': {
    success: json(PolicySchema, 'The policy in force: version 0 is the service’s own, which changes nothing'),
  },
  'policy-propose': {
    body: ProposalRequestSchema,
    success: accepted(
      ProposalSchema,
      'Proposed: the sandbox job replays the period’s screens under it; GET the `Location` (the proposal’s `link`) for its progress and report',
    ),
    errors: {
      400: 'A field of the policy breaks a rule or a bound the service enforces (each named in `errors`), or the period is not one',
      ...adminsOnly,
    },
    // The World leaders’ and international bodies’ PEP lists left out, on the last 90 days.
    requestExample: requestExample(ProposalRequestSchema, {
      policy: {
        ...SERVICE_POLICY,
        screening: { ...SERVICE_POLICY.screening, excluded_lists: ['world_leaders_pep', 'intl_bodies_pep'] },
      },
    }),
  },
  'policy-proposals-list': {
    query: ListQuerySchema,
    success: json(
      ProposalPageSchema,
      'A page of the tenant’s proposals, newest first, without their reports',
    ),
    errors: { ...listQueryErrors, ...adminsOnly },
  },
  'policy-proposal-get': {
    success: json(ProposalSchema, 'The proposal: its status, progress, and the report once it exists'),
    errors: { ...adminsOnly, ...notFound('policy proposal') },
  },
  'policy-proposal-apply': {
    success: json(
      PolicySchema,
      'Applied: the policy in force, its new version naming the proposal and the report’s digest',
    ),
    errors: {
      403: 'The caller is not an admin, or proposed it (four eyes: `four_eyes_required`)',
      ...notFound('policy proposal'),
      409: 'The sandbox report does not exist yet, the proposal was applied (another admin at once: one applies, the other gets 409), failed, or another version was adopted since it was proposed',
    },
  },
  'false-positives-list': {
    query: ListQuerySchema,
    success: json(RememberedFalsePositivePageSchema, 'A page of the remembered false positives'),
    errors: { ...listQueryErrors, ...adminsOnly },
  },
  'false-positive-revoke': {
    success: json(
      FalsePositiveRevokedSchema,
      'Forgotten: the next ad-hoc screen shows the match at its own level',
    ),
    errors: { ...adminsOnly, ...notFound('remembered false positive') },
  },
} as const satisfies Partial<Record<RouteId, Operation>>;
