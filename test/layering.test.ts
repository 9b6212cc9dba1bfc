import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The floors of lib/ (docs/architecture.md, "Floors"), top to bottom: an import may point down a
 * floor or stay inside its own folder, never up and never sideways into another folder of the
 * same floor. Type-only imports count: a type that climbs ties the lower floor to the upper one
 * as surely as a value does. Each entry is a folder of lib/ (or a single file, `ports.ts`).
 * The composition root (runtime/) is on the top floor: it knows every adapter and binds the
 * pipeline to them, and only the edges call it; the features see its adapters as `ports.ts`.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['runtime', 'openapi', 'api-docs'],
  ['http'],
  ['contract', 'jobs'],
  // The audit and screens exports join the trail, the screens and the tenant's roles.
  // Webhooks: endpoints, the outbox drain and the delivery, above every feature whose events they carry.
  ['export', 'webhooks'],
  ['monitoring'],
  ['batch'],
  ['screening'],
  // The tenant's screening policy (issue 40): read by screening and its decisions.
  ['ports.ts', 'sync', 'policy'],
  ['matcher', 'tenancy'],
  // The outbox: the store's side of webhook events, written by the features with their change.
  ['audit', 'outbox'],
  ['store', 'queue', 'watchlists'],
  ['common'],
];

/** Folders that make up the domain: none of them may reach the HTTP side or the composition root. */
const DOMAIN = [
  'monitoring',
  'batch',
  'screening',
  'sync',
  'matcher',
  'tenancy',
  'store',
  'queue',
  'watchlists',
  'outbox',
  'webhooks',
];
const NOT_FOR_THE_DOMAIN = ['contract', 'http', 'openapi', 'api-docs', 'runtime', 'jobs'];

/** The one module of lib/ that reads environment variables (for lib/, functions/ and the local runtime, infra/local/). */
const ENVIRONMENT_MODULE = 'lib/common/config.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The DynamoDB libraries. Only the store layer (lib/store/) and the one module that keeps each
 * stored kind (`*-table.ts`, in the folder that owns the kind) speak DynamoDB; a use case calls
 * their named operations, and a transaction joins those operations (lib/store/write.ts).
 */
const DYNAMODB_PACKAGE = /^@aws-sdk\/(client-dynamodb|lib-dynamodb|util-dynamodb)(\/|$)/;
const keepsStoredKinds = (file: string) => file.startsWith('lib/store/') || file.endsWith('-table.ts');

/** Every file of lib/ outside the store layer and the `*-table.ts` modules that imports a DynamoDB library. */
function dynamoDbImportsOutsideTheStore(sources: readonly { file: string; text: string }[]): string[] {
  return sources
    .filter(({ file }) => file.startsWith('lib/') && !keepsStoredKinds(file))
    .flatMap(({ file, text }) =>
      ts
        .preProcessFile(text, true, true)
        .importedFiles.map((f) => f.fileName)
        .filter((specifier) => DYNAMODB_PACKAGE.test(specifier))
        .map((specifier) => `${file} imports '${specifier}': only lib/store/ and *-table.ts modules may`),
    );
}

function tsFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...tsFilesUnder(path));
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

interface Import {
  from: string;
  /** Repository-relative path of the imported file (relative imports only). */
  to: string;
  specifier: string;
}

/** Every relative import of a file (static, type-only, re-exports and dynamic `import()`). */
function importsOf(file: string): Import[] {
  const text = readFileSync(join(root, file), 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({
      from: file,
      specifier,
      to: relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '.ts'),
    }));
}

/** The folder (or single file) of lib/ a path belongs to: `lib/store/table.ts` → `store`. */
function unitOf(path: string): string | undefined {
  if (!path.startsWith('lib/')) return undefined;
  const parts = path.slice(4).split('/');
  return parts.length === 1 ? parts[0] : parts[0];
}

function floorOf(unit: string): number {
  return FLOORS.findIndex((floor) => floor.includes(unit));
}

/** Floors are numbered from the bottom: common is 0. */
const height = (unit: string) => FLOORS.length - 1 - floorOf(unit);

function libGraph() {
  const files = tsFilesUnder('lib');
  const imports = files.flatMap(importsOf).filter((i) => i.to.startsWith('lib/'));
  return { files, imports };
}

/** Imports that point up a floor or sideways into another folder of the same floor. */
function climbingImports(imports: readonly Import[]): string[] {
  const broken: string[] = [];
  for (const i of imports) {
    const from = unitOf(i.from) as string;
    const to = unitOf(i.to) as string;
    if (from === to || floorOf(from) < 0 || floorOf(to) < 0) continue;
    if (height(to) > height(from)) {
      broken.push(`${i.from} imports '${i.specifier}': ${from}/ may not import ${to}/, a floor above it`);
    } else if (height(to) === height(from)) {
      broken.push(
        `${i.from} imports '${i.specifier}': ${from}/ and ${to}/ share a floor; move the shared part down`,
      );
    }
  }
  return broken;
}

/** Strongly connected groups of more than one file (and files importing themselves): the circles. */
function importCircles(files: readonly string[], imports: readonly Import[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const i of imports) next.get(i.from)?.push(i.to);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || next.get(v)?.includes(v)) circles.push(group.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return circles;
}

describe('the floors of lib/', () => {
  const { files, imports } = libGraph();

  it('puts every file of lib/ on a floor', () => {
    const homeless = files.filter((f) => floorOf(unitOf(f) as string) < 0);
    expect(
      homeless,
      'files in a folder that has no floor: add the folder to FLOORS or move the file',
    ).toEqual([]);
  });

  it('has no import that climbs or crosses to another folder of its floor', () => {
    expect(climbingImports(imports)).toEqual([]);
  });

  it('has no import circles', () => {
    expect(importCircles(files, imports).map((c) => c.join(' → '))).toEqual([]);
  });

  it('keeps the domain away from the contract, the HTTP side, the jobs and the composition root', () => {
    const broken = imports
      .filter((i) => DOMAIN.includes(unitOf(i.from) as string))
      .filter((i) => NOT_FOR_THE_DOMAIN.includes(unitOf(i.to) as string))
      .map((i) => `${i.from} imports '${i.specifier}'`);
    expect(broken).toEqual([]);
  });

  it('lets only the edges call the composition root', () => {
    const broken = imports
      .filter((i) => unitOf(i.to) === 'runtime' && unitOf(i.from) !== 'runtime')
      .map(
        (i) => `${i.from} imports '${i.specifier}': only functions/, infra/, scripts/, bench/ and eval/ may`,
      );
    expect(broken).toEqual([]);
  });

  it('keeps common/ free of the rest of the service (it imports packages only)', () => {
    const broken = imports
      .filter((i) => unitOf(i.from) === 'common' && unitOf(i.to) !== 'common')
      .map((i) => `${i.from} imports '${i.specifier}'`);
    expect(broken).toEqual([]);
  });

  it('lets only lib/store/ and the *-table.ts modules import the DynamoDB libraries', () => {
    const sources = files.map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
    expect(dynamoDbImportsOutsideTheStore(sources)).toEqual([]);
  });

  it('names a DynamoDB import planted in a use case, and lets a store module keep its own', () => {
    const planted = [
      { file: 'lib/screening/dispose.ts', text: "import { UpdateCommand } from '@aws-sdk/lib-dynamodb';\n" },
      {
        file: 'lib/tenancy/quota.ts',
        text: "import type { AttributeValue } from '@aws-sdk/client-dynamodb';\n",
      },
      {
        file: 'lib/screening/screen-table.ts',
        text: "import { GetCommand } from '@aws-sdk/lib-dynamodb';\n",
      },
      { file: 'lib/store/table.ts', text: "import { unmarshall } from '@aws-sdk/util-dynamodb';\n" },
    ];

    expect(dynamoDbImportsOutsideTheStore(planted)).toEqual([
      "lib/screening/dispose.ts imports '@aws-sdk/lib-dynamodb': only lib/store/ and *-table.ts modules may",
      "lib/tenancy/quota.ts imports '@aws-sdk/client-dynamodb': only lib/store/ and *-table.ts modules may",
    ]);
  });

  it(`reads environment variables in one module, for lib/, functions/ and infra/local/ (${ENVIRONMENT_MODULE})`, () => {
    const readers = [...files, ...tsFilesUnder('functions'), ...tsFilesUnder('infra/local')]
      .filter((f) => f !== ENVIRONMENT_MODULE)
      .filter((f) => /\bprocess\.env\b/.test(readFileSync(join(root, f), 'utf8')));
    expect(readers).toEqual([]);
  });
});

describe('the edges', () => {
  it('functions/ import lib/ only (not infra/, scripts/ or each other)', () => {
    const broken = tsFilesUnder('functions')
      .flatMap(importsOf)
      .filter((i) => !i.to.startsWith('lib/'))
      .map((i) => `${i.from} imports '${i.specifier}'`);
    expect(broken).toEqual([]);
  });

  it('lib/ imports none of the edges', () => {
    const broken = tsFilesUnder('lib')
      .flatMap(importsOf)
      .filter(
        (i) => !i.to.startsWith('lib/') && !i.to.startsWith('data/') && !i.to.startsWith('package.json'),
      )
      .map((i) => `${i.from} imports '${i.specifier}'`);
    expect(broken).toEqual([]);
  });

  it('keeps the local runtime (infra/local/) and the CDK app (infra/cdk/) apart', () => {
    const local = tsFilesUnder('infra/local').flatMap(importsOf);
    const cdk = tsFilesUnder('infra/cdk').flatMap(importsOf);
    const broken = [
      ...local.filter((i) => i.to.startsWith('infra/') && !i.to.startsWith('infra/local/')),
      ...cdk.filter((i) => i.to.startsWith('infra/') && !i.to.startsWith('infra/cdk/')),
    ].map((i) => `${i.from} imports '${i.specifier}'`);
    expect(broken).toEqual([]);
  });

  it('keeps the handlers in functions/ thin (3 to 15 lines)', () => {
    const fat = tsFilesUnder('functions')
      .map((f) => ({ f, lines: readFileSync(join(root, f), 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines < 3 || lines > 15)
      .map(({ f, lines }) => `${f}: ${lines} lines`);
    expect(fat).toEqual([]);
  });
});
