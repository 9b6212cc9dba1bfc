/**
 * Typed access to the plain objects fast-xml-parser produces, so parsers never touch `any`.
 */

export type XmlNode = { [key: string]: XmlValue };
export type XmlValue = string | number | boolean | XmlNode | XmlValue[] | undefined | null;

function asNode(value: XmlValue): XmlNode | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** The text of a child element ('' when absent or empty); `#text` is read for elements with attributes. */
export function childText(node: XmlNode | undefined, key: string): string {
  const value = node?.[key];
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return childText({ v: value[0] }, 'v');
  const inner = asNode(value);
  if (inner) return childText(inner, '#text');
  return String(value).trim();
}

/** Child elements with this name, as nodes (repeated or single, empty ones dropped). */
export function childNodes(node: XmlNode | undefined, key: string): XmlNode[] {
  const value = node?.[key];
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  return items.map(asNode).filter((n): n is XmlNode => n !== undefined);
}

/** Texts of a repeated child wrapper such as `<NATIONALITY><VALUE>a</VALUE><VALUE>b</VALUE></NATIONALITY>`. */
export function childValues(node: XmlNode | undefined, key: string, valueKey = 'VALUE'): string[] {
  const out: string[] = [];
  for (const wrapper of childNodes(node, key)) {
    const value = wrapper[valueKey];
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      const text = childText({ v: item }, 'v');
      if (text) out.push(text);
    }
  }
  return out;
}

export function child(node: XmlNode | undefined, key: string): XmlNode | undefined {
  return childNodes(node, key)[0];
}
