/**
 * The response bodies of the API as valibot schemas: the OpenAPI document (lib/openapi/document.ts)
 * converts them to JSON Schema, and the request pipeline (lib/http/handler.ts) types each use
 * case's result as the input of its route's declared response schema (lib/contract/operations.ts),
 * so the code cannot return a shape the document does not describe without failing the type
 * check. The contract tests then validate every body the HTTP tests receive against the document.
 *
 * These schemas describe, they do not transform: no transforms or checks, so the JSON Schema is an
 * exact rendering of them. Field meanings are the README's. One file per
 * resource under ./responses/; this module re-exports every schema, the set the pipeline and the
 * document generator (`import * as responses`) read.
 */

export { AuditEntrySchema, AuditPageSchema, SettingsSchema } from './responses/audit.ts';
export {
  BATCH_EVENTS_DESCRIBED,
  BatchDetailSchema,
  BatchEventSchemas,
  BatchPageSchema,
  BatchResultRowSchema,
  BatchSummarySchema,
} from './responses/batch.ts';
export {
  AlertPageSchema,
  AlertRowSchema,
  ClientConflictSchema,
  ClientDetailSchema,
  ClientPageSchema,
  ClientProfileSchema,
  RescreenRunPageSchema,
  RescreenRunSchema,
  RescreenRunStartedSchema,
  RescreenRunSummarySchema,
  ScreenedSubjectsPageSchema,
} from './responses/clients.ts';
export {
  AuditExportEndSchema,
  ExportErrorSchema,
  ScreenExportRecordSchema,
  ScreensExportEndSchema,
} from './responses/exports.ts';
export { ActorSchema, ErrorBodySchema, SubjectSchema } from './responses/fields.ts';
export {
  DecidedFalsePositiveMarkSchema,
  FalsePositiveRevokedSchema,
  PolicySchema,
  ProposalPageSchema,
  ProposalSchema,
  RememberedFalsePositivePageSchema,
  SandboxReportSchema,
} from './responses/policy.ts';
export {
  CriminalResultSchema,
  DecisionSchema,
  DispositionSchema,
  MatchSchema,
  MoreMatchesPageSchema,
  PepResultSchema,
  ReceiptSchema,
  SanctionsResultSchema,
  ScreenDeletedSchema,
  ScreenHistorySchema,
  ScreenPageSchema,
  ScreenReplaySchema,
  ScreenResultSchema,
  ScreenSchema,
  ScreenSummarySchema,
} from './responses/screens.ts';
export {
  DatabaseStatusSchema,
  HealthSchema,
  HealthStartingSchema,
  OpenApiDocumentSchema,
} from './responses/system.ts';
export {
  AccountSchema,
  DisabledUserSchema,
  RotatedKeySchema,
  UserListSchema,
  UserSchema,
  UserWithKeySchema,
} from './responses/users.ts';
export {
  DeliveryListSchema,
  DeliveryReplayedSchema,
  DeliverySchema,
  WebhookDeletedSchema,
  WebhookListSchema,
  WebhookOneSchema,
  WebhookRotatedSchema,
  WebhookSchema,
  WebhookTestSchema,
  WebhookWithSecretSchema,
} from './responses/webhooks.ts';
