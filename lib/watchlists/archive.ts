/**
 * Reading the bundled per-record transcriptions (EU, UK FCDO, NZ), which ship as one `.tar.gz`
 * holding thousands of small YAML files unmodified under their source repository paths.
 */
import { gunzipSync } from 'node:zlib';
import { CORE_SCHEMA, load as loadYaml } from 'js-yaml';
import { parseTar } from 'nanotar';

/** The regular files of a gzipped tar archive, path → bytes, in archive order. */
export function readTarGz(bytes: Uint8Array): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const entry of parseTar(gunzipSync(bytes))) {
    if (entry.data && entry.data.length > 0 && !entry.name.endsWith('/')) out.set(entry.name, entry.data);
  }
  return out;
}

/** A plain object as YAML or JSON gives it. */
export type Doc = { [key: string]: unknown };

export function isDoc(value: unknown): value is Doc {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The YAML documents of an archive whose path matches `pattern`, in path order (archive order is not promised). */
export function yamlDocuments(
  archive: Map<string, Uint8Array>,
  pattern: RegExp,
): { path: string; doc: Doc }[] {
  const decoder = new TextDecoder('utf-8');
  return [...archive.keys()]
    .filter((path) => pattern.test(path))
    .sort()
    .map((path) => {
      // js-yaml: about twice as fast as `yaml` on these 16,000 small files. The core schema keeps
      // unquoted dates as text, as the transcriptions mean them.
      const doc = loadYaml(decoder.decode(archive.get(path)), { schema: CORE_SCHEMA });
      if (!isDoc(doc)) throw new Error(`${path}: not a YAML mapping`);
      return { path, doc };
    });
}

/** A scalar as text ('' when absent); numbers and booleans as the YAML wrote them. */
export function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** A list field: an array as is, a single value as a one-element list, absent as empty. */
export function items(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

export function docs(value: unknown): Doc[] {
  return items(value).filter(isDoc);
}
