// The package's core (codes only): its main entry also registers every language's country names
// (about 700 KB in each function's bundle), and codes are all this reads.
import countries from 'i18n-iso-countries/index.js';
import { countryNameForCode, normaliseCountry } from '../watchlists/countries.ts';

/**
 * The country a subject's nationality or location names, as the lists' countries are normalised
 * (lib/watchlists/countries.ts): a name, official name or demonym as before, or an ISO 3166-1
 * alpha-2 or alpha-3 code in any case (`RU`, `rus`, `GBR`), which integrators copy from their
 * own records. The codes come from i18n-iso-countries, not a table kept here. Names are tried
 * first, so a text that is both a name and a code reads as the name.
 */
export function queryCountry(text: string | undefined | null): string | undefined {
  const named = normaliseCountry(text);
  if (named || !text) return named;
  const code = text.trim();
  if (!/^[A-Za-z]{2,3}$/.test(code) || !countries.isValid(code)) return undefined;
  const alpha2 = countries.toAlpha2(code);
  return alpha2 ? countryNameForCode(alpha2) : undefined;
}
