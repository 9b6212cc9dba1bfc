import { DatabaseStatusSchema, HealthSchema, OpenApiDocumentSchema } from '../responses.ts';
import type { RouteId } from '../routes.ts';
import { json, type Operation } from './shared.ts';

/** The contract of the system routes (health, lists status, the document and its reference page) (lib/contract/operations.ts). */
export const systemOperations = {
  health: { success: json(HealthSchema, 'The service is up') },
  'health-head': { success: { status: 200, description: 'The service is up (headers only)', schema: null } },
  openapi: { success: json(OpenApiDocumentSchema, 'This document') },
  dbstatus: { success: json(DatabaseStatusSchema, 'Per list counts, dates, sync state and staleness') },
  'reference-page': {
    success: {
      status: 200,
      description: 'The interactive reference of this document',
      mediaTypes: ['text/html'],
    },
  },
  'reference-asset': {
    success: {
      status: 200,
      description: 'One of the page’s files: its script, Swagger UI’s script and stylesheet, or an icon',
      mediaTypes: ['text/javascript', 'text/css', 'image/png'],
    },
    errors: { 404: 'Not one of the reference page’s files' },
  },
} as const satisfies Partial<Record<RouteId, Operation>>;
