import {
  DatabaseStatusSchema,
  HealthSchema,
  HealthStartingSchema,
  OpenApiDocumentSchema,
} from '../responses.ts';
import type { RouteId } from '../routes.ts';
import { json, type Operation, starting } from './shared.ts';

/** The contract of the system routes (health, lists status, the document and its reference page) (lib/contract/operations.ts). */
export const systemOperations = {
  health: {
    success: json(HealthSchema, 'The service is up'),
    errors: {
      503: 'The service is starting: `loading` says what it is loading. Retry after `Retry-After` seconds',
    },
    errorBodies: { 503: HealthStartingSchema },
  },
  'health-head': {
    success: { status: 200, description: 'The service is up (headers only)', schema: null },
    errors: { 503: 'The service is starting' },
  },
  openapi: { success: json(OpenApiDocumentSchema, 'This document') },
  dbstatus: {
    success: json(DatabaseStatusSchema, 'Per list counts, dates, sync state and staleness'),
    errors: starting,
  },
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
