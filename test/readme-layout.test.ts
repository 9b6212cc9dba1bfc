import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The text of one `## ` section of a markdown document. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
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

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');

const readmeAnchors = new Set([...readme.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1])));

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
    const folders = ['functions', 'lib', 'infra', 'test', 'data', 'bench', 'eval', 'scripts', 'docs'];

    expect(docs.filter((page) => !paths.has(page))).toEqual([]);
    expect(folders.filter((folder) => !paths.has(`${folder}/`))).toEqual([]);
  });
});

describe('docs pages', () => {
  const pages = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md'));

  it.each(pages)('%s links only to README headings and repository files that exist', (page) => {
    const text = readFileSync(join(root, 'docs', page), 'utf8');
    const links = [...text.matchAll(/\]\(([^)#\s]*)(?:#([^)\s]+))?\)/g)].filter(
      ([, target]) => !/^https?:/.test(target),
    );

    expect(links.length).toBeGreaterThan(0);
    expect(
      links.filter(([, target]) => target && !existsSync(join(root, 'docs', target))).map(([link]) => link),
    ).toEqual([]);
    expect(
      links
        .filter(([, target, anchor]) => target === '../README.md' && anchor && !readmeAnchors.has(anchor))
        .map(([link]) => link),
    ).toEqual([]);
  });
});

describe('docs/api-decisions.md', () => {
  const decisions = readFileSync(join(root, 'docs/api-decisions.md'), 'utf8');
  const decisionAnchors = new Set([...decisions.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1])));

  it('links only to README headings that exist', () => {
    const links = [...decisions.matchAll(/\]\(\.\.\/README\.md#([^)]+)\)/g)].map((m) => m[1]);

    expect(links.length).toBeGreaterThan(5);
    expect(links.filter((anchor) => !readmeAnchors.has(anchor))).toEqual([]);
  });

  it('has every section the code and the README point to', () => {
    const sources = ['lib', 'infra', 'test', 'README.md'].flatMap((path) => filesUnder(join(root, path)));
    const pointers = sources.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/docs\/api-decisions\.md#([\w-]+)/g)].map((m) => m[1]),
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
