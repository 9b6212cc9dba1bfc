import { NotFoundError } from '../common/errors.ts';
import { INTERFACE_VERSION } from '../common/version.ts';
import { SWAGGER_UI_FILES } from '../contract/routes.ts';
import type { ContentResult } from '../http/handler.ts';
import {
  acceptsGzip,
  contentTypeOf,
  isSwaggerUiFile,
  readSwaggerUiFile,
  swaggerUiDirectory,
} from './swagger-ui-files.ts';

/**
 * The interactive API reference (`GET /docs`): Swagger UI rendering the service's own OpenAPI
 * document. Customers run the service in locked-down networks, so every script, style and icon
 * comes from the service (`GET /docs/{asset}`) and the Content-Security-Policy forbids any other
 * origin. Every URL is relative, so the page works wherever the API is mounted: `/docs` loads
 * `docs/swagger-ui.css` and `openapi.json`, and behind a base path `/v1/docs` loads
 * `/v1/docs/swagger-ui.css` and `/v1/openapi.json`.
 */

/** The script that starts Swagger UI; a file of its own because the policy allows no inline script. */
export const STARTER_SCRIPT = 'reference-page.js';

/**
 * Nothing from another origin, no inline script, no plugins, no framing. `data:` images are
 * Swagger UI's own icons, inlined in its stylesheet; `connect-src 'self'` lets "Try it out" call
 * this API and nothing else.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

/** The files change only with the pinned swagger-ui-dist; an hour spares a reload the 1.7 MB bundle. */
const ASSET_CACHE_CONTROL = 'public, max-age=3600';

const assetUrl = (name: string) => `docs/${name}`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Individual Screening Service ${INTERFACE_VERSION}: API reference</title>
<link rel="stylesheet" href="${assetUrl('swagger-ui.css')}">
<link rel="icon" type="image/png" href="${assetUrl('favicon-32x32.png')}" sizes="32x32">
<link rel="icon" type="image/png" href="${assetUrl('favicon-16x16.png')}" sizes="16x16">
</head>
<body>
<noscript>This reference needs JavaScript. The OpenAPI document it renders is <a href="openapi.json">openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="${assetUrl('swagger-ui-bundle.js')}"></script>
<script src="${assetUrl(STARTER_SCRIPT)}"></script>
</body>
</html>
`;

/**
 * Swagger UI's configuration. "Try it out" sends requests to the API that served the page: the
 * document's `servers` are replaced by the page's own base URL when the document is loaded, so a
 * deployment behind CloudFront, a custom domain or a base path calls itself, never another
 * environment. The key typed into Authorize (the document's `X-API-Key` scheme) is kept in the
 * browser's local storage across reloads; `validatorUrl: null` keeps the document from ever
 * being sent to validator.swagger.io (the badge of Swagger UI's standalone layout), and `queryConfigEnabled: false` stops a link such as
 * `/docs?url=…` from loading another document into the page.
 */
const STARTER = `'use strict';
(function () {
  var base = new URL('.', document.baseURI).href.replace(/\\/$/, '');
  function servedByThisApi(text) {
    try {
      var openapi = JSON.parse(text);
      openapi.servers = [{ url: base, description: 'This API (the one serving this page)' }];
      return JSON.stringify(openapi);
    } catch (error) {
      return text;
    }
  }
  // Expanding an operation (or a schema) makes Swagger UI resolve its references
  // (fn.resolveSubtree). For an OpenAPI 3.1 document Swagger UI 5 does that through ApiDOM, which
  // took about a second per operation on this document in Chromium (swagger-ui issue 10748); its
  // OpenAPI 3.0 resolver gives the same subtree some forty times faster for a document like this
  // one, whose references are all local (#/components/...). Where the two differ it is put back
  // to what the 3.1 resolution shows: keywords written beside a $ref (3.1 keeps them; 3.0 drops
  // them), extensions (x-...: 3.1 leaves their references as written), and the note of an
  // operation's original id (3.0 adds it to every operation).
  // Swagger UI's own resolver stays reachable as fn.resolveSubtree.swaggerOwn, which the page's
  // tests compare with.
  function at(spec, path) {
    return path.reduce(function (node, part) {
      return node == null ? node : node[part];
    }, spec);
  }
  function pointerTarget(spec, ref) {
    if (typeof ref !== 'string' || ref.indexOf('#/') !== 0) return undefined;
    return at(spec, ref.slice(2).split('/').map(function (part) {
      return part.replace(/~1/g, '/').replace(/~0/g, '~');
    }));
  }
  function keepBesideRefs(spec, written, resolved, seen) {
    if (!written || typeof written !== 'object' || !resolved || typeof resolved !== 'object') return;
    if (typeof written.$ref === 'string') {
      if (seen.indexOf(written.$ref) !== -1) return;
      Object.keys(written).forEach(function (key) {
        if (key !== '$ref') resolved[key] = written[key];
      });
      keepBesideRefs(spec, pointerTarget(spec, written.$ref), resolved, seen.concat([written.$ref]));
      return;
    }
    Object.keys(written).forEach(function (key) {
      // The 3.1 resolution leaves an extension (x-...) as written, references and all.
      if (key.indexOf('x-') === 0) resolved[key] = written[key];
      else keepBesideRefs(spec, written[key], resolved[key], seen);
    });
  }
  function withFastSubtrees(system) {
    var swaggerOwn = system.fn.resolveSubtree;
    var resolveSubtree = function (spec, path, options) {
      if (!spec || !/^3\\.1\\./.test(String(spec.openapi))) return swaggerOwn(spec, path, options);
      // A copy: the 3.0 resolver replaces references in the objects it is given, and \`spec\` is
      // Swagger UI's own state.
      var copy = JSON.parse(JSON.stringify(spec));
      copy.openapi = '3.0.3';
      return swaggerOwn(copy, path, options).then(function (result) {
        var written = at(spec, path);
        var resolved = result.spec;
        // The 3.0 resolver notes every operation's original id; the 3.1 one only an id it rewrote.
        if (resolved && resolved.__originalOperationId === resolved.operationId) {
          delete resolved.__originalOperationId;
        }
        // 3.0 has no webhooks, so it leaves a webhook's id as written; 3.1 rewrites it as it
        // rewrites a path operation's (a character outside [A-Za-z0-9_] becomes _).
        if (path[0] === 'webhooks' && resolved && typeof resolved.operationId === 'string') {
          var id = resolved.operationId.replace(/\\s/g, '').replace(/\\W/g, '_');
          if (id !== resolved.operationId) {
            resolved.__originalOperationId = resolved.operationId;
            resolved.operationId = id;
          }
        }
        keepBesideRefs(spec, written, resolved, []);
        return result;
      });
    };
    resolveSubtree.swaggerOwn = swaggerOwn;
    system.fn.resolveSubtree = resolveSubtree;
  }
  function ThisApiPlugin() {
    return {
      afterLoad: withFastSubtrees,
      statePlugins: {
        spec: {
          wrapActions: {
            updateSpec: function (updateSpec) {
              return function (text) {
                return updateSpec(typeof text === 'string' ? servedByThisApi(text) : text);
              };
            },
          },
        },
      },
    };
  }
  window.ui = SwaggerUIBundle({
    url: new URL('openapi.json', document.baseURI).href,
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [ThisApiPlugin],
    layout: 'BaseLayout',
    deepLinking: true,
    persistAuthorization: true,
    displayRequestDuration: true,
    validatorUrl: null,
    queryConfigEnabled: false,
  });
})();
`;

/** `GET /docs`: the page itself. */
export function referencePage(): ContentResult {
  return {
    headers: { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' },
    content: PAGE,
  };
}

/**
 * `GET /docs/{asset}`: one of the allow-listed Swagger UI files or the starter script; any
 * other name is a 404, so the route never becomes a way to read the deployment package. Text
 * files go gzipped to a browser that accepts it.
 */
export async function referenceAsset(
  name: string,
  configuredDirectory: string | undefined,
  acceptEncoding?: string,
): Promise<ContentResult> {
  if (name !== STARTER_SCRIPT && !isSwaggerUiFile(name)) {
    throw new NotFoundError(
      `No reference page file ${name}; the page is served at /docs (files: ${[...SWAGGER_UI_FILES.files, STARTER_SCRIPT].join(', ')})`,
    );
  }
  const headers = {
    ...PAGE_HEADERS,
    'cache-control': ASSET_CACHE_CONTROL,
    'content-type': contentTypeOf(name),
  };
  if (!isSwaggerUiFile(name)) return { headers, content: STARTER };
  const bytes = await readSwaggerUiFile(swaggerUiDirectory(configuredDirectory), name);
  if (bytes.gzip && acceptsGzip(acceptEncoding)) {
    return {
      headers: { ...headers, 'content-encoding': 'gzip', vary: 'accept-encoding' },
      content: bytes.gzip,
    };
  }
  return { headers: bytes.gzip ? { ...headers, vary: 'accept-encoding' } : headers, content: bytes.identity };
}
