import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: unknown }>;
};

/** The lowest Node version package.json admits: the floor every locked package must run on. */
const floor = semver.minVersion(manifest.engines.node);

/** A package's `engines.node`, when it states one (a few old packages give an array or object). */
function nodeRange(engines: unknown): string | undefined {
  if (typeof engines !== 'object' || engines === null || Array.isArray(engines)) return undefined;
  const node = (engines as { node?: unknown }).node;
  return typeof node === 'string' ? node : undefined;
}

describe('engines', () => {
  it('package.json names a Node floor', () => {
    expect(floor?.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('every locked package runs on the floor package.json states (npm ci prints no EBADENGINE)', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .map(([path, entry]) => ({ path, version: entry.version, node: nodeRange(entry.engines) }))
      .filter(({ node }) => node !== undefined && floor && !semver.satisfies(floor, node as string))
      .map(({ path, version, node }) => `${path}@${version} wants node ${node}`);
    expect(refusing).toEqual([]);
  });
});
