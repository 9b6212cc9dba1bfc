import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './generated/openapi.ts';
import { currentKey } from './session.ts';

export type Schemas = components['schemas'];
export type Screen = Schemas['Screen'];
export type ScreenSummary = Schemas['ScreenSummary'];
export type Account = Schemas['Account'];
type ApiErrorBody = Partial<Pick<Schemas['ErrorBody'], 'detail' | 'code' | 'errors'>>;
export type RiskLevel = Screen['risk_level'];
export const RISK_LEVELS: RiskLevel[] = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'CLEAR'];

/** The key goes in X-API-Key on every call to this service; the console calls no other origin. */
const withKey: Middleware = {
  onRequest({ request }) {
    const key = currentKey();
    if (key) request.headers.set('X-API-Key', key);
    return request;
  },
};

/** The typed client: paths, parameters and bodies come from docs/openapi.json (scripts/build-console.sh). */
export const api = createClient<paths>({ baseUrl: location.origin });
api.use(withKey);

/** An API error as a person should read it: the service's `detail` (and `code` where it has one). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly code?: string,
    /** On a 400 that found broken fields: each field and the rule it broke. */
    readonly errors: { field: string; message: string }[] = [],
  ) {
    super(detail);
  }
}

/** The data of an openapi-fetch answer, or an ApiError carrying the API's `detail`. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data !== undefined && answer.response.ok) return answer.data;
  throw errorOf(answer.response, answer.error);
}

export function errorOf(response: Response, body: unknown): ApiError {
  const fields = (body ?? {}) as ApiErrorBody;
  return new ApiError(
    response.status,
    fields.detail ?? `${response.status} ${response.statusText || 'error'}`,
    fields.code,
    fields.errors ?? [],
  );
}

/** Headers for the calls openapi-fetch does not make (streams, downloads). */
export function keyHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const key = currentKey();
  return key ? { ...extra, 'X-API-Key': key } : extra;
}
