import { referencePage } from '../../lib/api-docs/reference-page.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('reference-page', () => referencePage());
