import { httpHandler } from '../../lib/http/handler.ts';
import { referenceAsset } from '../../lib/reference/reference-page.ts';

export const handler = httpHandler('reference-asset', ({ params, services, event }) =>
  referenceAsset(params.asset ?? '', services.config.SWAGGER_UI_DIR, event.headers?.['accept-encoding']),
);
