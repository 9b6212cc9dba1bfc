/**
 * Downloading a list's files: from the publishers' official URLs (the deployed sync), or from a
 * local mirror, a directory or a base URL (`npm run sync -- --from <dir|url>`), for a machine with
 * no internet and for the tests.
 */
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { FeedFile, GetFile } from './feeds.ts';

/** Where the files come from. */
export type SyncOrigin =
  | { kind: 'official' }
  | { kind: 'directory'; dir: string }
  | { kind: 'mirror-url'; baseUrl: string };

/** `undefined` → official URLs; `http(s)://…` → a mirror server; anything else → a directory. */
export function parseOrigin(from: string | undefined): SyncOrigin {
  if (!from) return { kind: 'official' };
  if (/^https?:\/\//i.test(from)) return { kind: 'mirror-url', baseUrl: from.replace(/\/+$/, '') };
  return { kind: 'directory', dir: from };
}

export function describeOrigin(origin: SyncOrigin): string {
  if (origin.kind === 'official') return 'official publisher URLs';
  return origin.kind === 'directory' ? `directory ${origin.dir}` : `mirror ${origin.baseUrl}`;
}

/** A download that did not produce the whole file; `message` is shown in /dbstatus. */
export class FetchError extends Error {
  override name = 'FetchError';
}

export interface FetchOptions {
  /** Per file, connection to last byte; default 60 s (the OFAC and UN files are 5–30 MB). */
  timeoutMs?: number;
  /** Refuses a larger body; default 200 MB. */
  maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_BYTES = 200 * 1024 * 1024;

/** The function a sync downloads each file with. */
export function createGetFile(origin: SyncOrigin, options: FetchOptions = {}): GetFile {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (origin.kind === 'directory') return (file) => readMirrorFile(origin.dir, file);
  return (file) =>
    download(origin.kind === 'official' ? file.url : `${origin.baseUrl}/${file.mirror}`, timeoutMs, maxBytes);
}

async function readMirrorFile(dir: string, file: FeedFile): Promise<Buffer> {
  const relative = normalize(file.mirror);
  if (relative.startsWith('..')) throw new FetchError(`mirror path ${file.mirror} leaves the directory`);
  try {
    return await readFile(join(dir, relative));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FetchError(
      code === 'ENOENT' ? `${file.mirror}: no such file in the mirror` : `${file.mirror}: ${code}`,
    );
  }
}

/**
 * GET with a deadline over the whole transfer and a check that the body is as long as the server
 * announced: a connection cut mid-file is an error, never a shorter list.
 */
async function download(url: string, timeoutMs: number, maxBytes: number): Promise<Buffer> {
  const where = redact(url);
  let response: Response;
  try {
    response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { 'user-agent': 'individual-screening-service list sync' },
      redirect: 'follow',
    });
  } catch (error) {
    throw new FetchError(`${where}: ${describeFailure(error, timeoutMs)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new FetchError(`${where}: HTTP ${response.status}`);
  }
  const announced = Number(response.headers.get('content-length') ?? Number.NaN);
  if (announced > maxBytes) {
    await response.body?.cancel();
    throw new FetchError(`${where}: ${announced} bytes is over the ${maxBytes}-byte limit`);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of response.body ?? []) {
      received += chunk.length;
      if (received > maxBytes) throw new FetchError(`${where}: over the ${maxBytes}-byte limit`);
      chunks.push(Buffer.from(chunk));
    }
  } catch (error) {
    if (error instanceof FetchError) throw error;
    throw new FetchError(`${where}: ${describeFailure(error, timeoutMs)} after ${received} bytes`);
  }
  // Compressed transfers announce the compressed length; only a plain body can be compared.
  const encoded = response.headers.get('content-encoding');
  if (Number.isFinite(announced) && !encoded && received !== announced) {
    throw new FetchError(`${where}: truncated download (${received} of ${announced} bytes)`);
  }
  return Buffer.concat(chunks);
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `timed out after ${Math.round(timeoutMs / 1000)} s`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** URLs appear in /dbstatus and logs: a query-string token (the EU's) is not repeated there. */
function redact(url: string): string {
  return url.replace(/([?&]token=)[^&]+/i, '$1…');
}
