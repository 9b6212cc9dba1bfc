/**
 * `npm run openapi`: writes the generated OpenAPI 3.1 document (lib/openapi/document.ts) to
 * docs/openapi.json, or to the path given. test/openapi/document.test.ts fails when the committed
 * file and the generated document differ, so regenerate after changing a route or a schema.
 */
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../lib/openapi/document.ts';
import { OPENAPI_FILE, openApiFileText } from '../lib/openapi/file.ts';

const target = process.argv[2] ?? OPENAPI_FILE;
writeFileSync(target, openApiFileText(openApiDocument()));
console.log(`wrote ${target}`);
