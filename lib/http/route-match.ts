import { type HttpMethod, type RouteDefinition, routes } from '../contract/routes.ts';

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  params: string[];
  /** Literal segments first, so `/screens/pending` wins over `/screens/{screen_id}`. */
  specificity: number;
}

function compile(route: RouteDefinition): CompiledRoute {
  const params: string[] = [];
  const segments = route.path.split('/').filter(Boolean);
  const source = segments
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (param) {
        params.push(param[1]);
        return '/([^/]+)';
      }
      return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    })
    .join('');
  const literal = segments.filter((s) => !s.startsWith('{')).length;
  return {
    route,
    // Exact: API Gateway's routes do not match a trailing slash, so neither does the local server.
    pattern: new RegExp(`^${source || '/'}$`),
    params,
    specificity: literal * 100 - params.length,
  };
}

const compiled = routes.map(compile).sort((a, b) => b.specificity - a.specificity);

/**
 * The path parameters when `path` is exactly the route's path (`/batch/{batch_id}/events`
 * matches `/batch/BAT-1/events` with `{ batch_id: 'BAT-1' }`), else undefined. A Function URL
 * passes only the raw path, so a streamed route reads its parameters with this.
 */
export function matchRoutePath(route: RouteDefinition, path: string): Record<string, string> | undefined {
  const { pattern, params } = compiled.find((candidate) => candidate.route === route) ?? compile(route);
  const match = pattern.exec(path);
  if (!match) return undefined;
  return Object.fromEntries(params.map((name, i) => [name, safeDecode(match[i + 1])]));
}

export type RouteLookup =
  | { kind: 'found'; route: RouteDefinition; pathParameters: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: HttpMethod[] }
  | { kind: 'not-found' };

/** Finds the manifest route for a request; used by the local server and the AWS fallback route. */
export function lookupRoute(method: string, path: string): RouteLookup {
  const allow: HttpMethod[] = [];
  // The specificity of the first path that matched: `Allow` names the methods of that resource
  // alone. `/screens/pending` also matches `/screens/{screen_id}`, but its resource is the pending
  // list (GET), not a screen (GET, DELETE).
  let resource: number | undefined;
  for (const candidate of compiled) {
    const match = candidate.pattern.exec(path);
    if (!match) continue;
    if (candidate.route.method === method.toUpperCase()) {
      const pathParameters: Record<string, string> = {};
      candidate.params.forEach((name, i) => {
        pathParameters[name] = safeDecode(match[i + 1]);
      });
      return { kind: 'found', route: candidate.route, pathParameters };
    }
    // CloudFront sends every method of a stream route's path to its function (a path pattern), so
    // GET /batch/stream is that function's 405, never a less specific route such as GET /batch/{batch_id}.
    if (resource === undefined && candidate.route.kind === 'stream') {
      return { kind: 'method-not-allowed', allow: [candidate.route.method] };
    }
    resource ??= candidate.specificity;
    if (candidate.specificity === resource && !allow.includes(candidate.route.method)) {
      allow.push(candidate.route.method);
    }
  }
  return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
