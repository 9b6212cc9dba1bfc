import { readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { consoleDirectorySetting } from '../common/config.ts';
import { acceptsGzip } from './swagger-ui-files.ts';

/**
 * The console (`/console`, built from console/ into dist/console by `npm run build:console`). Locally
 * the service's own process serves it from here; on AWS the same files are in S3 behind the same
 * CloudFront distribution with the same policy (infra/cdk/constructs/console-site.ts).
 */
export const CONSOLE_PATH = '/console';

/**
 * Every script, style, image and connection from the service itself; no inline script or style
 * element, no plugins, no framing, no form posting anywhere.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const CONSOLE_HEADERS = {
  'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

const repoRoot = resolve(import.meta.dirname, '../..');

/** dist/console, or CONSOLE_DIR. */
export function consoleDirectory(configured = consoleDirectorySetting()): string {
  return configured || join(repoRoot, 'dist/console');
}

export function isConsolePath(path: string): boolean {
  return path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);
}

export interface ConsoleResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const cache = new Map<string, Promise<{ identity: Buffer; gzip: Buffer }>>();

function read(path: string) {
  let bytes = cache.get(path);
  if (!bytes) {
    bytes = readFile(path).then(async (identity) => ({ identity, gzip: await promisify(gzip)(identity) }));
    cache.set(path, bytes);
    bytes.catch(() => cache.delete(path));
  }
  return bytes;
}

/** Forgets what was read (a rebuilt console is served without a restart in tests). */
export function forgetConsoleFiles(): void {
  cache.clear();
}

/**
 * A GET under /console: a hashed file under /console/assets/ (cached for a year, it never
 * changes under its name), or the page itself for any other path (the console routes in the
 * browser, so /console/screens/SCR-… reloads into the same page). An unknown asset is a 404, never
 * the page, and no name reaches outside the folder.
 */
export async function consoleResponse(
  path: string,
  acceptEncoding: string | undefined,
  directory = consoleDirectory(),
): Promise<ConsoleResponse> {
  const asset = /^\/console\/assets\/([A-Za-z0-9_-][A-Za-z0-9_.-]*)$/.exec(path);
  const name = asset ? `assets/${asset[1]}` : 'index.html';
  const type = CONTENT_TYPES[extname(name)];
  let bytes: { identity: Buffer; gzip: Buffer };
  try {
    if (!type) throw new Error('no such type');
    bytes = await read(join(directory, name));
  } catch {
    const missing = asset
      ? `No console file ${path}`
      : `The console is not built: run \`npm run build:console\` (it writes ${directory})`;
    return {
      status: 404,
      headers: { ...CONSOLE_HEADERS, 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ detail: missing })),
    };
  }
  const zipped = acceptsGzip(acceptEncoding) && !type.startsWith('image/png');
  return {
    status: 200,
    headers: {
      ...CONSOLE_HEADERS,
      'content-type': type,
      'cache-control': asset ? 'public, max-age=31536000, immutable' : 'no-cache',
      vary: 'accept-encoding',
      ...(zipped ? { 'content-encoding': 'gzip' } : {}),
    },
    body: zipped ? bytes.gzip : bytes.identity,
  };
}
