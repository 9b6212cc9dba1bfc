import { referenceAsset } from '../../lib/api-docs/reference-page.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('reference-asset', ({ params, services, event }) =>
  referenceAsset(params.asset ?? '', services.config.SWAGGER_UI_DIR, event.headers?.['accept-encoding']),
);
