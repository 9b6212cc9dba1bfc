import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BuiltBundle,
  buildBundles,
  holdsMatcher,
  LAZY_PACKAGES,
  MATCHER_MODULES,
} from '../../infra/cdk/function-bundles.ts';
import { plannedBundles } from '../../infra/cdk/stack.ts';
import { routes } from '../../lib/contract/routes.ts';
import { repoRoot } from '../support/cdk-stack.ts';

/**
 * Every function's bundle as the stack deploys it (infra/cdk/function-bundles.ts, built once with
 * esbuild's metafile): a function that does not screen must not carry the matcher, and a route
 * that does not screen stays under a third of the 2.2 MB every function weighed before (issue 38).
 */

let outdir: string;
let bundles: BuiltBundle[];
beforeAll(async () => {
  outdir = mkdtempSync(path.join(tmpdir(), 'function-bundles-'));
  const specs = plannedBundles({ routes, projectRoot: repoRoot, serviceVersion: '' });
  bundles = [...(await buildBundles(repoRoot, specs, outdir)).values()];
}, 300_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const screening = new Set(
  plannedBundles({ routes, projectRoot: repoRoot, serviceVersion: '' })
    .filter((spec) => spec.needsWatchlists)
    .map((spec) => spec.entry),
);
const routeEntries = new Set<string>(routes.map((route) => route.entry));

describe('function bundles', () => {
  it('builds one bundle for every function the stack creates', () => {
    expect(bundles.length).toBeGreaterThan(50);
    for (const route of routes) expect(bundles.map((bundle) => bundle.entry)).toContain(route.entry);
  });

  it('leaves the matcher out of every function that does not screen, and keeps it in those that do', () => {
    const strays = bundles
      .filter((bundle) => !screening.has(bundle.entry) && holdsMatcher(bundle))
      .map(
        (bundle) =>
          `${bundle.entry}: ${MATCHER_MODULES.filter((module) => bundle.inputs[module]).join(', ')}`,
      );
    expect(strays).toEqual([]);
    const screeningBundles = bundles.filter((bundle) => screening.has(bundle.entry));
    expect(screeningBundles.length).toBeGreaterThanOrEqual(5);
    for (const bundle of screeningBundles) expect(holdsMatcher(bundle), bundle.entry).toBe(true);
  });

  it('keeps the list parsers (and the spreadsheet reader) out of every function that does not screen', () => {
    for (const bundle of bundles.filter((candidate) => !screening.has(candidate.entry))) {
      const parsers = Object.keys(bundle.inputs).filter(
        (input) => input.startsWith('lib/watchlists/ofac') || input.includes('/xlsx/'),
      );
      expect(parsers, bundle.entry).toEqual([]);
    }
  });

  it('keeps every route that does not screen under a third of 2.2 MB', () => {
    const routeBundles = bundles.filter(
      (bundle) => routeEntries.has(bundle.entry) && !screening.has(bundle.entry),
    );
    expect(routeBundles.length).toBeGreaterThan(30);
    const over = routeBundles
      .filter((bundle) => bundle.bytes > 2_200_000 / 3)
      .map((bundle) => `${bundle.entry} ${bundle.bytes}`);
    expect(over).toEqual([]);
  });

  it('ships the romanisation dictionaries beside the bundle, loaded with require() on first use only', () => {
    const me = bundles.find((bundle) => bundle.entry === routes.find((route) => route.id === 'me')?.entry);
    expect(me).toBeDefined();
    const code = readFileSync(me?.file ?? '', 'utf8');
    for (const file of Object.values(LAZY_PACKAGES)) {
      expect(me?.lazyFiles.map((lazy) => path.basename(lazy))).toContain(file);
      expect(code).toContain(`"./${file}"`);
      expect(code).not.toMatch(new RegExp(`^import[^;]*"\\./${file.replace('.', '\\.')}"`, 'm'));
    }
    // Their code is not in the bundle itself: pinyin-pro's dictionary alone is 458 KB.
    expect(Object.keys(me?.inputs ?? {}).filter((input) => input.includes('pinyin-pro'))).toEqual([]);
  });

  it('imports only the DynamoDB clients of the AWS SDK at load; SQS and KMS are imported at first use', () => {
    for (const bundle of bundles.filter((candidate) => !screening.has(candidate.entry))) {
      const code = readFileSync(bundle.file, 'utf8');
      const loaded = [...code.matchAll(/(?:from|import)\s*"(@aws-sdk\/[^"]+)"/g)].map((match) => match[1]);
      for (const sdk of loaded) expect(sdk, bundle.entry).not.toMatch(/client-(sqs|kms)$/);
    }
  });

  it('writes no source map', () => {
    for (const bundle of bundles) {
      expect(readFileSync(bundle.file, 'utf8'), bundle.entry).not.toContain('sourceMappingURL');
    }
  });
});
