/** Where `npm run openapi` writes the document, relative to the repository root, and in what form. */
export const OPENAPI_FILE = 'docs/openapi.json';

/** Two-space JSON with a final newline, the form biome keeps. */
export const openApiFileText = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

/** Responses captured from the local stack (scripts/capture-openapi-examples.ts), the document's examples. */
export const EXAMPLES_FILE = 'lib/openapi/examples.json';
