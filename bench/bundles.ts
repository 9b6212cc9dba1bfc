/**
 * `npm run bench:bundles`: every function's bundle as the stack deploys it, with its size minified
 * and gzipped, sorted, and whether it holds the matcher (the screening engine and its snapshot
 * loader). Exits 1 when a route that does not screen is larger than a third of 2.2 MB (what every
 * function weighed before issue 36) or when a function that does not screen holds the matcher.
 *
 *   npm run bench:bundles                      # builds them (infra/cdk/function-bundles.ts)
 *   npm run bench:bundles -- --cdk-out cdk.out # reads the packages of a synth (npm run synth)
 *   npm run bench:bundles -- --sourcemap DIR   # builds them with source maps into DIR (on demand)
 *   npm run bench:bundles -- --json            # one JSON line per function
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildBundles, holdsMatcher } from '../infra/cdk/function-bundles.ts';
import { plannedBundles } from '../infra/cdk/stack.ts';
import { routes } from '../lib/contract/routes.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A third of the 2.2 MB every function's bundle weighed before (issue 38). */
export const NON_SCREENING_ROUTE_BUDGET = Math.round(2_200_000 / 3);

export interface BundleSize {
  /** `GET /me`, or the entry of a function no route calls. */
  name: string;
  /** Served to API callers (HTTP API or a streaming Function URL). */
  route: boolean;
  screens: boolean;
  /** Bytes of the bundle loaded at a cold start, minified, and gzipped. */
  bytes: number;
  gzipBytes: number;
  /** Bytes of the files beside it that load only when needed (the romanisation dictionaries). */
  lazyBytes: number;
  matcher: boolean;
  /** The bundle file (read by bench/cold-start.ts). */
  file: string;
}

const routeByEntry = new Map<string, string>(
  routes.map((route) => [route.entry, `${route.method} ${route.path}`]),
);

/** Every function's bundle, built with the stack's options; `sourcemap` adds index.mjs.map files. */
export async function builtBundleSizes(
  outdir: string,
  options: { sourcemap?: boolean } = {},
): Promise<BundleSize[]> {
  const specs = plannedBundles({ routes, projectRoot, serviceVersion: '' });
  const built = await buildBundles(projectRoot, specs, outdir, options);
  return [...built.values()].map((bundle) => {
    const code = readFileSync(bundle.file);
    return {
      name: routeByEntry.get(bundle.entry) ?? bundle.entry,
      route: routeByEntry.has(bundle.entry),
      screens: bundle.needsWatchlists,
      bytes: code.length,
      gzipBytes: gzipSync(code).length,
      lazyBytes: bundle.lazyFiles.reduce((sum, file) => sum + statSync(file).size, 0),
      matcher: holdsMatcher(bundle),
      file: bundle.file,
    };
  });
}

interface TemplateFunction {
  Type: string;
  Properties: { Description?: string; Environment?: { Variables?: Record<string, unknown> } };
  Metadata?: Record<string, string>;
}

/**
 * The packages of a synth (cdk.out): a bundle built without a metafile is known to hold the matcher
 * by a name the bundler keeps (`keepNames`): the engine's `createMatcher` (lib/matcher/screen.ts).
 */
export function synthesisedBundleSizes(cdkOut: string): BundleSize[] {
  const templateFile = readdirSync(cdkOut).find((file) => file.endsWith('.template.json'));
  if (!templateFile) throw new Error(`No template in ${cdkOut}: run npm run synth first`);
  const template = JSON.parse(readFileSync(path.join(cdkOut, templateFile), 'utf8')) as {
    Resources: Record<string, TemplateFunction>;
  };
  const sizes: BundleSize[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || !assetPath) continue;
    const dir = path.join(cdkOut, assetPath);
    const file = path.join(dir, 'index.mjs');
    if (!existsSync(file)) continue;
    const code = readFileSync(file);
    const description = resource.Properties.Description ?? logicalId;
    const route = /^(GET|HEAD|POST|PATCH|DELETE) \//.test(description);
    const lazy = readdirSync(dir).filter((name) => name.endsWith('.cjs'));
    sizes.push({
      name: route
        ? description.slice(0, description.indexOf(':'))
        : (resource.Metadata?.['aws:cdk:path'] ?? logicalId),
      route,
      screens: resource.Properties.Environment?.Variables?.WATCHLIST_SNAPSHOT !== undefined,
      bytes: code.length,
      gzipBytes: gzipSync(code).length,
      lazyBytes: lazy.reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0),
      matcher: code.includes('"createMatcher"'),
      file,
    });
  }
  return sizes;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

export function report(sizes: BundleSize[]): { ok: boolean; lines: string[] } {
  const sorted = [...sizes].sort((a, b) => b.bytes - a.bytes);
  const width = Math.max(...sorted.map((size) => size.name.length));
  const lines = [
    `${'function'.padEnd(width)}  ${'minified'.padStart(9)}  ${'gzipped'.padStart(8)}  ${'lazy'.padStart(7)}  screens  matcher`,
    ...sorted.map(
      (size) =>
        `${size.name.padEnd(width)}  ${kb(size.bytes).padStart(9)}  ${kb(size.gzipBytes).padStart(8)}  ${(size.lazyBytes ? kb(size.lazyBytes) : '-').padStart(7)}  ${(size.screens ? 'yes' : 'no').padEnd(7)}  ${size.matcher ? 'yes' : 'no'}`,
    ),
  ];
  const nonScreening = sorted.filter((size) => size.route && !size.screens);
  const largest = nonScreening[0];
  const strays = sorted.filter((size) => size.matcher && !size.screens);
  const total = sorted.reduce((sum, size) => sum + size.bytes, 0);
  const median = (values: number[]) => {
    const ordered = [...values].sort((a, b) => a - b);
    return ordered[Math.floor((ordered.length - 1) / 2)] ?? 0;
  };
  lines.push(
    '',
    `${sorted.length} functions, ${(total / 1e6).toFixed(1)} MB of bundles; routes that do not screen: ${nonScreening.length}, median ${kb(median(nonScreening.map((size) => size.bytes)))}`,
    `largest route that does not screen: ${largest ? `${largest.name} ${kb(largest.bytes)}` : 'none'} (budget ${kb(NON_SCREENING_ROUTE_BUDGET)}, a third of 2.2 MB): ${largest && largest.bytes > NON_SCREENING_ROUTE_BUDGET ? 'OVER' : 'ok'}`,
    `matcher outside the functions that screen: ${strays.length === 0 ? 'none' : strays.map((size) => size.name).join(', ')}`,
  );
  return { ok: !(largest && largest.bytes > NON_SCREENING_ROUTE_BUDGET) && strays.length === 0, lines };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? (args[at + 1] ?? '') : undefined;
  };
  const cdkOut = option('--cdk-out');
  const sourcemapDir = option('--sourcemap');
  let sizes: BundleSize[];
  let scratch: string | undefined;
  if (cdkOut !== undefined) {
    sizes = synthesisedBundleSizes(path.resolve(cdkOut || 'cdk.out'));
  } else {
    const outdir = sourcemapDir
      ? path.resolve(sourcemapDir)
      : mkdtempSync(path.join(tmpdir(), 'bench-bundles-'));
    if (!sourcemapDir) scratch = outdir;
    const started = performance.now();
    sizes = await builtBundleSizes(outdir, { sourcemap: sourcemapDir !== undefined });
    console.log(
      `built ${sizes.length} bundles in ${((performance.now() - started) / 1000).toFixed(1)} s${sourcemapDir ? `, with source maps, into ${outdir}` : ''}`,
    );
  }
  if (args.includes('--json')) {
    for (const size of sizes) console.log(JSON.stringify({ ...size, file: undefined }));
  }
  const { ok, lines } = report(sizes);
  console.log(lines.join('\n'));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  process.exitCode = ok ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
