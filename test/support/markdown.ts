/**
 * Reading the README and the docs/ pages as GitHub renders them, for the tests that check their
 * links (test/readme-layout.test.ts) and run their examples (test/api/readme-examples.test.ts).
 * A line starting with `#` inside a fenced code block is a shell comment, not a heading.
 */

/** A heading outside fenced code: its level (1 to 6), its text and its line number (from 0). */
export interface Heading {
  level: number;
  text: string;
  line: number;
}

/** Every heading of a markdown document, in order, skipping fenced code blocks. */
export function headings(markdown: string): Heading[] {
  const found: Heading[] = [];
  let fenced = false;
  markdown.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^(#{1,6}) (.+)$/.exec(line);
    if (heading) found.push({ level: heading[1].length, text: heading[2], line: index });
  });
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');

/** Every anchor GitHub gives a document's headings: a repeated heading gets `-1`, `-2`... */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text } of headings(markdown)) {
    const anchor = anchorOf(text);
    const times = seen.get(anchor) ?? 0;
    seen.set(anchor, times + 1);
    anchors.add(times === 0 ? anchor : `${anchor}-${times}`);
  }
  return anchors;
}

/**
 * The text of the section a heading opens (the first heading with that text, at any level), up to
 * the next heading of the same or a higher level; a page's `#` title opens the whole page.
 */
export function section(markdown: string, heading: string): string {
  const all = headings(markdown);
  const start = all.find((candidate) => candidate.text === heading);
  if (!start) throw new Error(`no section "${heading}"`);
  const end = all.find((candidate) => candidate.line > start.line && candidate.level <= start.level);
  return markdown.split('\n').slice(start.line, end?.line).join('\n');
}

/** The code blocks fenced as `language` in a text, without their fences. */
export function codeBlocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map(
    (match) => match[1],
  );
}

/** A markdown link: its text, its target file (empty for the same document) and its anchor. */
export interface Link {
  link: string;
  file: string;
  anchor: string | undefined;
}

/** Every link of a document to a relative path or an anchor (web addresses and code left out). */
export function relativeLinks(markdown: string): Link[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(([^)#\s]*)(?:#([^)\s]+))?\)/g)]
    .filter(([, file]) => !/^[a-z]+:/.test(file))
    .map(([link, file, anchor]) => ({ link, file, anchor }));
}
