import { readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { SWAGGER_UI_FILES, type SwaggerUiFile } from '../contract/routes.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

/** Text compresses (the bundle from 1.7 MB to 0.46 MB); PNG is compressed already. */
const COMPRESSIBLE = new Set(['.js', '.css']);

/** The content type a served file is labelled with, from its extension. */
export function contentTypeOf(name: string): string {
  const type = CONTENT_TYPES[extname(name)];
  if (!type) throw new Error(`No content type for ${name}`);
  return type;
}

export function isSwaggerUiFile(name: string): name is SwaggerUiFile {
  return (SWAGGER_UI_FILES.files as readonly string[]).includes(name);
}

const repoRoot = resolve(import.meta.dirname, '../..');

/**
 * Where the files are: in a deployed function, the folder the stack copied them to (it sets
 * SWAGGER_UI_DIR); locally, the installed package.
 */
export function swaggerUiDirectory(configured: string | undefined): string {
  return configured || join(repoRoot, SWAGGER_UI_FILES.from);
}

/** A file as read, and gzipped when it is text. */
export interface SwaggerUiFileBytes {
  identity: Buffer;
  gzip?: Buffer;
}

const cache = new Map<string, Promise<SwaggerUiFileBytes>>();

async function load(path: string): Promise<SwaggerUiFileBytes> {
  const identity = await readFile(path);
  return COMPRESSIBLE.has(extname(path)) ? { identity, gzip: await promisify(gzip)(identity) } : { identity };
}

/**
 * A file's bytes, read (and compressed) once per cold start: every page load asks for the 1.7 MB
 * bundle, and neither API Gateway nor the CloudFront behaviour (which must not buffer the batch
 * streams) compresses responses.
 */
export function readSwaggerUiFile(directory: string, name: SwaggerUiFile): Promise<SwaggerUiFileBytes> {
  const path = join(directory, name);
  let bytes = cache.get(path);
  if (!bytes) {
    bytes = load(path);
    cache.set(path, bytes);
    // A failed read (a package missing the file) is not remembered: the next request tries again.
    bytes.catch(() => cache.delete(path));
  }
  return bytes;
}

/**
 * Whether an `Accept-Encoding` header admits gzip: `gzip` with a q-value above 0, or else `*`
 * with one (an explicit `gzip;q=0` wins over `*`).
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  const qualities = new Map<string, number>();
  for (const entry of (acceptEncoding ?? '').split(',')) {
    const [coding, ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    qualities.set(coding, quality === undefined ? 1 : Number(quality.slice(2)));
  }
  return (qualities.get('gzip') ?? qualities.get('*') ?? 0) > 0;
}
