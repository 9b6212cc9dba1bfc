import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, relativeLinks, section } from './support/markdown.ts';

const root = resolve(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
/** The docs pages, as `docs/<name>.md`. */
const pages = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
/** Every markdown document the README leads to, with the anchors of its headings. */
const documents = new Map(
  ['README.md', ...pages].map((path) => {
    const text = readFileSync(join(root, path), 'utf8');
    return [path, { text, anchors: anchorsOf(text) }];
  }),
);

/**
 * The links of a document that do not resolve: a file that does not exist, or an anchor that is
 * no heading of the markdown document it names (the same document when it names none).
 */
function brokenLinks(path: string): string[] {
  return relativeLinks(documents.get(path)?.text ?? '')
    .filter(({ file, anchor }) => {
      const target = file ? relative(root, resolve(root, dirname(path), file)) : path;
      if (!existsSync(join(root, target))) return true;
      if (!anchor || !target.endsWith('.md')) return false;
      const anchors = documents.get(target)?.anchors ?? anchorsOf(readFileSync(join(root, target), 'utf8'));
      return !anchors.has(anchor);
    })
    .map(({ link }) => link);
}

/**
 * Every path the Layout section names: the folder starting each line of its tree, the names in
 * parentheses on that line (relative to that folder: `infra/ ... (stack.ts) ... (local/)`), and
 * every backticked path in the prose under it.
 */
function layoutPaths(): string[] {
  const text = section(readme, 'Layout');
  const tree = /```\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
  const paths: string[] = [];
  let folder = '';
  for (const line of tree.split('\n')) {
    const leading = /^(\S+\/)/.exec(line)?.[1];
    if (leading) {
      folder = leading;
      paths.push(leading);
    }
    for (const group of line.matchAll(/\(([^)]*)\)/g))
      for (const name of group[1].split(/[,\s]+/))
        if (/^[\w.-]+(\/|\.\w+)$/.test(name)) paths.push(folder + name);
    const named = /^\s*(?:\S+\/)?\s+([\w-]+\.\w+):/.exec(line)?.[1];
    if (named) paths.push(folder + named);
  }
  // Paths written out in full in the prose of a line (`both read lib/contract/routes.ts`), outside parentheses.
  const folders = new Set(paths.filter((path) => /^[\w-]+\/$/.test(path)));
  for (const line of tree.split('\n'))
    for (const match of line.replace(/\([^)]*\)/g, '').matchAll(/(?<![\w/])([\w-]+\/[\w./-]*)/g))
      if (folders.has(`${match[1].split('/')[0]}/`) && match.index > 0) paths.push(match[1]);
  for (const match of text.matchAll(/`([\w./-]+\/[\w./-]+)`/g)) paths.push(match[1]);
  return paths;
}

describe('README layout', () => {
  it('names only paths that exist', () => {
    const paths = layoutPaths();

    expect(paths).toEqual(
      expect.arrayContaining([
        'functions/',
        'lib/',
        'lib/contract/routes.ts',
        'lib/tenancy/',
        'infra/cdk/stack.ts',
        'docs/',
      ]),
    );
    expect(paths.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it('lists every docs page and every top-level source folder', () => {
    const paths = new Set(layoutPaths());
    const docs = readdirSync(join(root, 'docs')).map((name) => `docs/${name}`);
    const folders = [
      'functions',
      'lib',
      'console',
      'infra',
      'test',
      'data',
      'bench',
      'eval',
      'scripts',
      'docs',
    ];

    expect(docs.filter((page) => !paths.has(page))).toEqual([]);
    expect(folders.filter((folder) => !paths.has(`${folder}/`))).toEqual([]);
  });
});

describe('README, the front page', () => {
  it('opens with the two commands, and stays a front page (at most 300 lines)', () => {
    const [first] = readme.split('```sh\n')[1].split('```');

    expect(readme.startsWith('# Individual Screening Service\n\n```sh\nnpm ci && npm start ')).toBe(true);
    expect(first.split('\n').map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'npm ci',
      'npm test',
      '',
    ]);
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('links every docs page', () => {
    const linked = new Set(relativeLinks(readme).map(({ file }) => file));
    const docs = readdirSync(join(root, 'docs')).map((name) => `docs/${name}`);

    expect(docs.filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('links', () => {
  it.each(['README.md', ...pages])('%s links only to files and headings that exist', (path) => {
    expect(relativeLinks(documents.get(path)?.text ?? '').length).toBeGreaterThan(0);
    expect(brokenLinks(path)).toEqual([]);
  });

  it('every pointer in the code to a README or docs heading names one that exists', () => {
    const sources = ['lib', 'functions', 'infra', 'scripts', 'test', 'bench', 'eval'].flatMap((path) =>
      filesUnder(join(root, path)).filter((file) => file.endsWith('.ts')),
    );
    const pointers = sources.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\b((?:docs\/)?[\w-]+\.md)#([\w-]+)/g)]
        .filter(([, path]) => path === 'README.md' || path.startsWith('docs/'))
        .map(([pointer, path, anchor]) => ({ pointer, path, anchor, file: relative(root, file) })),
    );

    expect(pointers.length).toBeGreaterThan(10);
    expect(
      pointers
        .filter(({ path, anchor }) => !documents.get(path)?.anchors.has(anchor))
        .map(({ file, pointer }) => `${file}: ${pointer}`),
    ).toEqual([]);
  });
});

describe('docs/api-decisions.md', () => {
  const decisionAnchors = documents.get('docs/api-decisions.md')?.anchors ?? new Set();

  it('links to the README and docs headings that hold the details, all of which exist', () => {
    const links = relativeLinks(documents.get('docs/api-decisions.md')?.text ?? '').filter(
      ({ file, anchor }) => anchor && (file === '../README.md' || /^[\w-]+\.md$/.test(file)),
    );

    expect(links.length).toBeGreaterThan(5);
    expect(brokenLinks('docs/api-decisions.md')).toEqual([]);
  });

  it('has every section the code, the README and the docs pages point to', () => {
    const sources = ['lib', 'infra', 'test', 'README.md', ...pages].flatMap((path) =>
      filesUnder(join(root, path)),
    );
    const pointers = sources.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:docs\/)?api-decisions\.md#([\w-]+)/g)].map((m) => m[1]),
    );

    expect(pointers.length).toBeGreaterThan(10);
    expect([...new Set(pointers)].filter((anchor) => !decisionAnchors.has(anchor))).toEqual([]);
  });
});

function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (path.endsWith('.md') || path.endsWith('.ts')) return [path];
  if (!statSync(path).isDirectory()) return [];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}
