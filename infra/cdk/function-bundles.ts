import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, buildSync, type Metafile, type Plugin } from 'esbuild';

/**
 * Every function's bundle, built the way the stack deploys it: the esbuild options live here once,
 * for the stack (constructs/service-function.ts), `npm run bench:bundles`, `npm run
 * bench:cold-start` and test/infra/function-bundles.test.ts.
 *
 * One esbuild build per kind of function (those that screen, and the others) takes every entry
 * point at once, so each source file and package is read and parsed once per synth instead of
 * once per function (55 esbuild processes before).
 */

/** A function to bundle: its entry (relative to the project root) and whether it screens. */
export interface BundleSpec {
  entry: string;
  needsWatchlists?: boolean;
}

export interface BuiltBundle {
  entry: string;
  needsWatchlists: boolean;
  /** The bundle Lambda loads at a cold start (ES module, minified, no source map). */
  file: string;
  /** Bytes of `file`. */
  bytes: number;
  /** Files beside it, loaded only when the code needs them (the romanisation dictionaries). */
  lazyFiles: string[];
  /** The source files and packages in the bundle, relative to the project root, with their bytes. */
  inputs: Record<string, number>;
}

/**
 * Packages the code loads with `require()` on first use only (lib/matcher/romanise/han.ts and
 * indic.ts: the first name written in Han or an Indic script). They are left out of the bundle and
 * shipped beside it as one minified file each, so a function that never meets such a name (and
 * every function that never validates a name) does not read 620 KB of dictionaries at each cold start.
 */
export const LAZY_PACKAGES: Readonly<Record<string, string>> = {
  'pinyin-pro': 'pinyin-pro.cjs',
  '@indic-transliteration/sanscript': 'sanscript.cjs',
};

/**
 * The modules of the screening engine and its watchlist snapshot: a function that never screens
 * must bundle none of them (test/infra/function-bundles.test.ts; `npm run bench:bundles`).
 */
export const MATCHER_MODULES = [
  'lib/matcher/screen.ts',
  'lib/matcher/compiled-index.ts',
  'lib/matcher/snapshot-file.ts',
  'lib/sync/live-watchlists.ts',
] as const;

/** Whether a bundle holds the screening engine (any of MATCHER_MODULES). */
export function holdsMatcher(bundle: Pick<BuiltBundle, 'inputs'>): boolean {
  return MATCHER_MODULES.some((module) => (bundle.inputs[module] ?? 0) > 0);
}

/**
 * The service's own modules (lib/) declare no side effects on import: none is imported for its
 * effect alone (test/layering.test.ts reads every import), so esbuild may leave out a module none
 * of whose exports a function uses. Without it, a module kept for one export keeps every module it
 * imports: GET /clients/rescreen/runs/{run_id} named the newest snapshot through run-lists.ts and
 * carried the whole list sync with it (990 KB, the spreadsheet parser alone 390 KB).
 */
function ownModulesWithoutSideEffects(projectRoot: string): Plugin {
  const lib = `${path.join(projectRoot, 'lib')}${path.sep}`;
  return {
    name: 'own-modules-without-side-effects',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\/.*\.ts$/ }, (args) => {
        const resolved = path.resolve(args.resolveDir, args.path);
        return resolved.startsWith(lib) ? { path: resolved, sideEffects: false } : undefined;
      });
    },
  };
}

/** The esbuild options of every function's bundle. */
export function bundleOptions(projectRoot: string, needsWatchlists: boolean): BuildOptions {
  return {
    absWorkingDir: projectRoot,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    // CommonJS dependencies bundled into an ES module still call `require` for Node built-ins
    // (and the lazy packages, beside the bundle).
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    // The nodejs22.x runtime ships AWS SDK v3; bundling it would only grow the cold start.
    // The lazy packages: `require('pinyin-pro')` becomes `require('./pinyin-pro.cjs')`, left as it is.
    external: ['@aws-sdk/*', ...Object.values(LAZY_PACKAGES).map((file) => `./${file}`)],
    alias: Object.fromEntries(Object.entries(LAZY_PACKAGES).map(([name, file]) => [name, `./${file}`])),
    // No source map (7 MB a function, and --enable-source-maps slows every stack trace): build one
    // on demand with `npm run bench:bundles -- --sourcemap`. Names kept, so a stack trace still
    // names the functions it passed through.
    sourcemap: false,
    minify: true,
    keepNames: true,
    // A function that never screens leaves the matcher, the list parsers and the snapshot loader
    // out (lib/runtime/services.ts).
    define: { SERVICE_BUNDLES_WATCHLISTS: String(needsWatchlists) },
    plugins: [ownModulesWithoutSideEffects(projectRoot)],
    metafile: true,
    logLevel: 'error',
  };
}

/** `functions/http/me.ts` → `functions-http-me`: an entry's folder in the build directory. */
const slugOf = (entry: string) => entry.replace(/\.[cm]?[jt]s$/, '').replace(/[^A-Za-z0-9]+/g, '-');

const keyOf = (spec: BundleSpec): string => `${spec.needsWatchlists ? 'w' : 'n'}:${spec.entry}`;

/**
 * Builds the bundles of `specs` into `outdir` (one esbuild build per kind), with the lazy packages
 * beside the bundles that load them. Options as the stack's; `sourcemap` writes `index.mjs.map`
 * files beside them (on demand only: the stack never ships one).
 */
export async function buildBundles(
  projectRoot: string,
  specs: readonly BundleSpec[],
  outdir: string,
  options: { sourcemap?: boolean } = {},
): Promise<Map<string, BuiltBundle>> {
  const built = new Map<string, BuiltBundle>();
  const unique = [...new Map(specs.map((spec) => [keyOf(spec), spec])).values()];
  for (const needsWatchlists of [false, true]) {
    const group = unique.filter((spec) => Boolean(spec.needsWatchlists) === needsWatchlists);
    if (group.length === 0) continue;
    const groupDir = path.join(outdir, needsWatchlists ? 'screening' : 'other');
    const result = await build({
      ...bundleOptions(projectRoot, needsWatchlists),
      ...(options.sourcemap ? { sourcemap: 'external' as const } : {}),
      entryPoints: group.map((spec) => ({
        in: path.join(projectRoot, spec.entry),
        out: `${slugOf(spec.entry)}/index`,
      })),
      outdir: groupDir,
      outExtension: { '.js': '.mjs' },
    });
    const metafile = result.metafile as Metafile;
    for (const spec of group) {
      const file = path.join(groupDir, slugOf(spec.entry), 'index.mjs');
      const output = metafile.outputs[path.relative(projectRoot, file).split(path.sep).join('/')];
      if (!output) throw new Error(`esbuild wrote no bundle for ${spec.entry}`);
      const lazy = Object.entries(LAZY_PACKAGES).filter(([, name]) =>
        output.imports.some((imported) => imported.external && imported.path === `./${name}`),
      );
      for (const [name, fileName] of lazy) {
        copyFileSync(
          lazyPackageFile(projectRoot, outdir, name, fileName),
          path.join(path.dirname(file), fileName),
        );
      }
      built.set(keyOf(spec), {
        entry: spec.entry,
        needsWatchlists,
        file,
        bytes: output.bytes,
        lazyFiles: lazy.map(([, fileName]) => path.join(path.dirname(file), fileName)),
        inputs: Object.fromEntries(
          Object.entries(output.inputs).map(([input, { bytesInOutput }]) => [input, bytesInOutput]),
        ),
      });
    }
  }
  return built;
}

/** A lazy package as one minified CommonJS file, built once per build directory. */
function lazyPackageFile(projectRoot: string, outdir: string, name: string, fileName: string): string {
  const file = path.join(outdir, 'lazy', fileName);
  if (!existsSync(file)) {
    buildSync({
      absWorkingDir: projectRoot,
      entryPoints: [createRequire(path.join(projectRoot, 'package.json')).resolve(name)],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node22',
      minify: true,
      outfile: file,
      logLevel: 'error',
    });
  }
  return file;
}

/**
 * The bundles of one synth: built at the first function's request, every planned entry at once
 * (the stack plans every function it creates); an entry not planned is built on its own. CDK
 * bundles an asset synchronously and esbuild's plugins need its asynchronous API, so the build runs
 * in a child process (infra/cdk/build-bundles.ts), once.
 */
export class FunctionBundles {
  private readonly built = new Map<string, BuiltBundle>();
  private outdir: string | undefined;

  constructor(
    private readonly projectRoot: string,
    private readonly planned: readonly BundleSpec[] = [],
  ) {}

  /** The bundle of `spec`, building it (and every planned one not built yet) when needed. */
  bundleOf(spec: BundleSpec): BuiltBundle {
    const key = keyOf(spec);
    if (!this.built.has(key)) {
      if (!this.outdir) {
        const outdir = mkdtempSync(path.join(tmpdir(), 'service-bundles-'));
        // The packages are copied out of it; nothing reads it once the synth is over.
        process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
        this.outdir = outdir;
      }
      const pending = [...this.planned, spec].filter((candidate) => !this.built.has(keyOf(candidate)));
      const dir = path.join(this.outdir, String(this.built.size));
      for (const bundle of buildInChildProcess(this.projectRoot, pending, dir)) {
        this.built.set(keyOf(bundle), bundle);
      }
    }
    const bundle = this.built.get(key);
    if (!bundle) throw new Error(`No bundle was built for ${spec.entry}`);
    return bundle;
  }

  /** Copies the bundle of `spec` and its lazy files into a function's package folder. */
  packageInto(outputDir: string, spec: BundleSpec): BuiltBundle {
    const bundle = this.bundleOf(spec);
    mkdirSync(outputDir, { recursive: true });
    for (const file of [bundle.file, ...bundle.lazyFiles]) {
      copyFileSync(file, path.join(outputDir, path.basename(file)));
    }
    return bundle;
  }

  /** Removes the build directory (the packages were copied out of it). */
  dispose(): void {
    if (this.outdir) rmSync(this.outdir, { recursive: true, force: true });
    this.outdir = undefined;
    this.built.clear();
  }
}

const BUILD_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build-bundles.ts');

/** buildBundles in a child process (tsx), synchronously; its result is read from `<outdir>/bundles.json`. */
function buildInChildProcess(
  projectRoot: string,
  specs: readonly BundleSpec[],
  outdir: string,
): BuiltBundle[] {
  mkdirSync(outdir, { recursive: true });
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', BUILD_SCRIPT, projectRoot, outdir, JSON.stringify(specs)],
    { cwd: path.dirname(BUILD_SCRIPT), encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] },
  );
  if (run.status !== 0) {
    throw new Error(`Bundling failed (${BUILD_SCRIPT}): ${run.stderr || run.error?.message || run.status}`);
  }
  return JSON.parse(readFileSync(path.join(outdir, BUNDLES_FILE), 'utf8')) as BuiltBundle[];
}

/** What build-bundles.ts writes into its output folder: every BuiltBundle, as JSON. */
export const BUNDLES_FILE = 'bundles.json';
