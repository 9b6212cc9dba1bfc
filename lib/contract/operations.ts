import { auditOperations } from './operations/audit.ts';
import { batchOperations } from './operations/batch.ts';
import { clientsOperations } from './operations/clients.ts';
import { exportsOperations } from './operations/exports.ts';
import { policyOperations } from './operations/policy.ts';
import { screensOperations } from './operations/screens.ts';
import type { Operation } from './operations/shared.ts';
import { systemOperations } from './operations/system.ts';
import { usersOperations } from './operations/users.ts';
import { webhooksOperations } from './operations/webhooks.ts';
import type { RouteId } from './routes.ts';

/**
 * The contract of every route of the manifest (lib/contract/routes.ts): what it reads (request body and
 * query, as the valibot schemas the request pipeline validates with) and what it answers (its
 * success status and body schema, or for a streamed route its Server-Sent Events; the error
 * statuses it can answer beyond those every route of its kind can). The request pipeline takes
 * its input schemas from here and types each use case's result by its success schema
 * (lib/http/handler.ts); the OpenAPI document (lib/openapi/document.ts) is generated from it.
 * One file per resource under ./operations/, merged here; a route missing from them fails the type
 * check.
 */
export type { ErrorStatus, Operation } from './operations/shared.ts';

export const operations = {
  ...systemOperations,
  ...usersOperations,
  ...screensOperations,
  ...clientsOperations,
  ...auditOperations,
  ...exportsOperations,
  ...batchOperations,
  ...webhooksOperations,
  ...policyOperations,
} as const satisfies Record<RouteId, Operation>;

export type Operations = typeof operations;
