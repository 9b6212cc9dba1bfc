import { servedOpenApiDocument } from '../../lib/openapi/document.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

/** GET /openapi.json: the generated OpenAPI 3.1 document, no key needed. */
export const handler = httpHandler('openapi', () => ({ body: servedOpenApiDocument() }));
