import { httpHandler } from '../../lib/http/handler.ts';
import { servedOpenApiDocument } from '../../lib/openapi/document.ts';

/** GET /openapi.json: the generated OpenAPI 3.1 document, no key needed. */
export const handler = httpHandler('openapi', () => ({ body: servedOpenApiDocument() }));
