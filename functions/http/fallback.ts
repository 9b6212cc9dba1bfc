import { fallbackRoute } from '../../lib/contract/routes.ts';
import { rejectUnroutedRequest } from '../../lib/http/fallback.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

/** API Gateway `$default` route: unknown paths get 404, known paths with the wrong method 405. */
export const handler = httpHandler(fallbackRoute, ({ event }) =>
  rejectUnroutedRequest(event.requestContext.http.method, event.rawPath),
);
