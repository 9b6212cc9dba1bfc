/**
 * How much of the OpenAPI document the HTTP tests exercise: run the tests with
 * CONTRACT_COVERAGE_DIR set (test/support/contract-setup.ts records each checked response's
 * operation and status there), then `npx tsx scripts/contract-coverage.ts <dir>` prints how many
 * declared responses (operation and status) were answered at least once, and lists the others.
 *
 *   mkdir -p /tmp/contract && CONTRACT_COVERAGE_DIR=/tmp/contract npx vitest run test/api --project embedded
 *   npx tsx scripts/contract-coverage.ts /tmp/contract
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../lib/openapi/document.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: tsx scripts/contract-coverage.ts <CONTRACT_COVERAGE_DIR>');

const seen = new Set(
  readdirSync(dir).flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean)),
);
const paths = openApiDocument().paths as Record<string, Record<string, { responses: object }>>;
const declared = Object.entries(paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) =>
    Object.keys(operation.responses).map((status) => `${method.toUpperCase()} ${path} ${status}`),
  ),
);
const unseen = declared.filter((response) => !seen.has(response));
const operations = new Set(declared.map((response) => response.split(' ').slice(0, 2).join(' ')));
const operationsSeen = new Set([...seen].map((response) => response.split(' ').slice(0, 2).join(' ')));

console.log(`operations answered: ${operationsSeen.size} of ${operations.size}`);
console.log(`declared responses answered: ${declared.length - unseen.length} of ${declared.length}`);
console.log(`not answered by any test:\n  ${unseen.join('\n  ')}`);
