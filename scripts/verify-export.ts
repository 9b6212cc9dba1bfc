import { verifyExportFile } from '../lib/export/verify.ts';

/**
 * `npm run verify-export -- <file>`: checks an export of GET /audit/export or GET /screens/export
 * with nothing but the file (lib/export/verify.ts). Prints OK with the count and the head hash (or
 * digest), exit 0; or where the file breaks and why, exit 1.
 */
const [file] = process.argv.slice(2);
if (!file) {
  console.error('usage: npm run verify-export -- <export file (.ndjson or .csv)>');
  process.exit(2);
}
try {
  const verdict = await verifyExportFile(file);
  console.log(verdict.ok ? verdict.detail : `BROKEN at ${verdict.at}: ${verdict.detail}`);
  process.exit(verdict.ok ? 0 : 1);
} catch (error) {
  console.error(`cannot read ${file}: ${(error as Error).message}`);
  process.exit(2);
}
