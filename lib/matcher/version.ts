/**
 * The matcher's version, recorded on every screen's receipt: a hash of the matcher's sources
 * (lib/matcher/source-hash.ts), written by `npm run matcher:version`; a Lambda bundle has no
 * sources to hash at run time. test/matcher/version.test.ts fails when the sources changed and
 * this was not rewritten.
 */
export const MATCHER_VERSION = 'matcher-a0d28e8ad4cbd976';
