import { MethodNotAllowedError, NotFoundError } from '../common/errors.ts';
import { lookupRoute } from './route-match.ts';

/**
 * The answer for a request no route takes: 405 with `Allow` when the path exists under another
 * method, otherwise 404. Serves API Gateway's `$default` route and the local server alike.
 */
export function rejectUnroutedRequest(method: string, path: string): never {
  const lookup = lookupRoute(method, path);
  if (lookup.kind === 'method-not-allowed') {
    throw new MethodNotAllowedError(
      `Method ${method.toUpperCase()} is not allowed on ${path}; allowed: ${lookup.allow.join(', ')}`,
      lookup.allow,
    );
  }
  throw new NotFoundError(`No route ${method.toUpperCase()} ${path}`);
}
