/**
 * `npm run matcher:version`: records the matcher's source fingerprint (lib/matcher/source-hash.ts)
 * in lib/matcher/version.ts, the version every screen's receipt names. test/matcher/version.test.ts
 * fails while the sources and the recorded version disagree, so run this after changing the matcher.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import {
  MATCHER_VERSION_FILE,
  matcherSourceVersion,
  matcherVersionFileText,
} from '../lib/matcher/source-hash.ts';

const version = matcherSourceVersion();
const text = matcherVersionFileText(version);
const before = readFileSync(MATCHER_VERSION_FILE, 'utf8');
if (before === text) console.log(`${MATCHER_VERSION_FILE} is current: ${version}`);
else {
  writeFileSync(MATCHER_VERSION_FILE, text);
  console.log(`wrote ${MATCHER_VERSION_FILE}: ${version}`);
}
