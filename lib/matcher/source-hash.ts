/**
 * The matcher's source fingerprint, for `npm run matcher:version` (scripts/matcher-version.ts) and
 * the test that keeps lib/matcher/version.ts current. Never imported at run time: a Lambda bundle
 * has no sources on disk, so the running code carries the recorded hash instead.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const libDir = resolve(import.meta.dirname, '..');
const matcherDir = resolve(libDir, 'matcher');
/** Not matching code: the recorded hash itself and this file, which computes it. */
const EXCLUDED = new Set(['matcher/version.ts', 'matcher/source-hash.ts']);
/** The matcher's entry point: what it imports for values is what a screen runs. */
const ENTRY = 'matcher/screen.ts';
/** Imports whose module can change what a screen returns (type-only imports cannot). */
const VALUE_IMPORT = /^import\s+(?!type\s)[^;]*?from\s+'(\.{1,2}\/[^']+\.ts)'/gm;
/**
 * Packages the matcher loads at run time (romanisation of Han and Indic scripts): their versions,
 * pinned exactly in package.json, are part of the matcher's version.
 */
const MATCHER_PACKAGES = ['pinyin-pro', '@indic-transliteration/sanscript'];

/** Data files the matcher imports, relative to the repository root: they change what a screen returns. */
const MATCHER_DATA = ['data/names/name-commonness.json'];

function matcherFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = resolve(dir, entry.name);
    if (entry.isDirectory()) return matcherFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Everything `from` imports for values, transitively, within lib/matcher and lib/watchlists. */
function valueImports(from: string): string[] {
  const found = new Set<string>();
  const queue = [resolve(libDir, from)];
  while (queue.length > 0) {
    const path = queue.shift() as string;
    const name = relative(libDir, path);
    if (found.has(name) || !/^(matcher|watchlists)\//.test(name)) continue;
    found.add(name);
    for (const m of readFileSync(path, 'utf8').matchAll(VALUE_IMPORT)) queue.push(resolve(path, '..', m[1]));
  }
  return [...found];
}

/**
 * The files that decide a screen's result, relative to lib/: every module of lib/matcher, and the
 * lib/watchlists modules the matcher's entry point imports for values (countries, PEP tiers). The
 * list parsers and the snapshot build are not here: a screen's receipt names its snapshot by
 * version, which identifies their output.
 */
export function matcherSourceFiles(): string[] {
  const files = new Set([
    ...matcherFiles(matcherDir).map((path) => relative(libDir, path)),
    ...valueImports(ENTRY),
  ]);
  return [...files].filter((name) => !EXCLUDED.has(name)).sort();
}

/** `matcher-<16 hex>`: SHA-256 over each source file's path and content (path order) and the packages' versions. */
export function matcherSourceVersion(): string {
  const hash = createHash('sha256');
  for (const name of matcherSourceFiles()) {
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(resolve(libDir, name)))
      .update('\0');
  }
  // Data the matcher reads that is not code: the population name table.
  for (const name of MATCHER_DATA) {
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(resolve(libDir, '..', name)))
      .update('\0');
  }
  const manifest = JSON.parse(readFileSync(resolve(libDir, '../package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const name of MATCHER_PACKAGES) {
    const version = manifest.dependencies[name];
    if (!version) throw new Error(`${name} is not a dependency in package.json (lib/matcher/source-hash.ts)`);
    hash.update(`${name}@${version}\0`);
  }
  return `matcher-${hash.digest('hex').slice(0, 16)}`;
}

/** Where the recorded version lives, relative to the repository root. */
export const MATCHER_VERSION_FILE = 'lib/matcher/version.ts';

/** lib/matcher/version.ts as `npm run matcher:version` writes it. */
export function matcherVersionFileText(version: string): string {
  return `/**
 * The matcher's version, recorded on every screen's receipt: a hash of the matcher's sources
 * (lib/matcher/source-hash.ts), written by \`npm run matcher:version\`; a Lambda bundle has no
 * sources to hash at run time. test/matcher/version.test.ts fails when the sources changed and
 * this was not rewritten.
 */
export const MATCHER_VERSION = '${version}';
`;
}
