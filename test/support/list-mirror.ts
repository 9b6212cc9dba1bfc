/**
 * A local mirror of the publishers' files for the sync tests: a temporary directory holding real
 * list files copied from data/, and a static HTTP server over it (127.0.0.1) that can also
 * misbehave the ways a publisher's server does (404, a hang, a connection cut mid-file).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { buildSnapshot, defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import { LIST_SOURCES } from '../../lib/watchlists/sources.ts';
import type { WatchlistSnapshot } from '../../lib/watchlists/types.ts';

export const UN_FILE = 'sanctions/un/UN_consolidated.xml';
export const EXECUTIVE_FILE = 'pep/us_congress_legislators/executive.yaml';

export interface ListMirror {
  dir: string;
  read(path: string): string;
  write(path: string, content: string | Buffer): void;
  remove(path: string): void;
  close(): void;
}

/** A temporary mirror holding copies of `files` (paths under data/). */
export function createListMirror(files: readonly string[]): ListMirror {
  const dir = mkdtempSync(join(tmpdir(), 'list-mirror-'));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(defaultDataDir(), file), join(dir, file));
  }
  return {
    dir,
    read: (path) => readFileSync(join(dir, path), 'utf8'),
    write: (path, content) => writeFileSync(join(dir, path), content),
    remove: (path) => rmSync(join(dir, path), { force: true }),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The snapshot of a few real lists, parsed from `dir` (the bundled data/ by default, or a
 * mirror's directory): one or two small lists build in a second, the whole set in half a minute.
 */
export function snapshotOfLists(
  lists: readonly string[],
  options: { dir?: string; now?: Date } = {},
): WatchlistSnapshot {
  return buildSnapshot(options.dir ?? defaultDataDir(), {
    sources: LIST_SOURCES.filter((source) => lists.includes(source.descriptor.id)),
    ...(options.now ? { now: options.now } : {}),
  });
}

/** The UN XML without its first `count` individuals (real entries, none invented). */
export function unWithoutIndividuals(xml: string, count: number): string {
  let out = xml;
  for (let i = 0; i < count; i++) {
    const start = out.indexOf('<INDIVIDUAL>');
    const end = out.indexOf('</INDIVIDUAL>', start) + '</INDIVIDUAL>'.length;
    out = out.slice(0, start) + out.slice(end);
  }
  return out;
}

/** How the server treats one path. */
export type Fault = 'hang' | 'cut' | 404;

export interface MirrorServer {
  url: string;
  /** Makes the server misbehave for `path` until `clear`. */
  fault(path: string, fault: Fault): void;
  clear(): void;
  close(): Promise<void>;
}

/** A static file server over the mirror directory, on loopback only. */
export async function serveMirror(mirror: ListMirror): Promise<MirrorServer> {
  const faults = new Map<string, Fault>();
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(
      /^\/+/,
      '',
    );
    const fault = faults.get(path);
    if (fault === 404 || path.startsWith('..')) {
      res.writeHead(404).end('not found');
      return;
    }
    if (fault === 'hang') {
      hanging.add(res);
      return;
    }
    let body: Buffer;
    try {
      body = readFileSync(join(mirror.dir, path));
    } catch {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' });
    if (fault === 'cut') {
      // Half the announced bytes, then the connection drops: a download cut mid-file.
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    fault: (path, fault) => faults.set(path, fault),
    clear: () => faults.clear(),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
