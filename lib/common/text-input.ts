/**
 * Rules for free text people send (names, places, notes), shared by every field that takes it.
 *
 * - Control characters are stripped: C0 and C1 controls, DEL, and the bidirectional formatting
 *   controls (LRM, RLM, ALM, the embeddings, overrides and isolates). Copied from documents they
 *   are invisible noise; stored and shown to an analyst they can make a name read differently
 *   from what it is (a right-to-left override reverses the rest of the line). Line breaks and
 *   tabs become spaces in one-line fields and are kept in notes.
 * - Text that is not well-formed Unicode is refused: an unpaired surrogate (JSON can carry one as
 *   `\ud800`) or a noncharacter has no meaning, cannot be sent on by every store and queue, and a
 *   screen of it would be of nothing.
 */
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** A control character stripped from text (tab, line feed and carriage return are handled apart). */
export function isStrippedControl(code: number): boolean {
  if (code === TAB || code === LINE_FEED || code === CARRIAGE_RETURN) return false;
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** Strips the control characters above; `multiline` keeps line breaks (`\n`) and tabs. */
export function stripControls(text: string, multiline = false): string {
  let out = '';
  for (const char of text) {
    if (!isStrippedControl(char.codePointAt(0)!)) out += char;
  }
  out = out.replace(/\r\n?/g, '\n');
  return multiline ? out : out.replace(/[\n\t]/g, ' ');
}

/** True when the text holds no unpaired surrogate and no noncharacter (U+FDD0..U+FDEF, U+xFFFE/F). */
export function isWellFormedText(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) return false;
    if ((code >= 0xfdd0 && code <= 0xfdef) || (code & 0xfffe) === 0xfffe) return false;
  }
  return true;
}

export const MALFORMED_TEXT_MESSAGE =
  'must be valid Unicode text (it holds an unpaired surrogate or a noncharacter)';
