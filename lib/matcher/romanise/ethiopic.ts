/** Ethiopic (Ge'ez) syllabary, as Amharic names are usually romanised. */

// Ethiopic (Ge'ez) is a syllabary laid out in rows of eight: one consonant, seven vowel orders
// and a labialised form (Unicode 3.12 §19.1). Rows from U+1200, consonants as Amharic names
// are usually romanised; the sixth order (ə) is mostly silent in names and is left out.
const ETHIOPIC_CONSONANTS =
  'h l h m s r s sh q qw q qw b v t ch h hw n ny - k kw kh khw w - z zh y d d j g gw ng t ch p ts ts f p'.split(
    ' ',
  );
const ETHIOPIC_ORDERS = ['e', 'u', 'i', 'a', 'e', '', 'o', 'wa'];

export function transliterateEthiopic(code: number): string {
  if (code >= 0x1361 && code <= 0x1368) return ' ';
  if (code > 0x1357) return '';
  const consonant = ETHIOPIC_CONSONANTS[(code - 0x1200) >> 3].replace('-', '');
  const order = code & 7;
  let vowel = ETHIOPIC_ORDERS[order];
  // The first order of the h and glottal rows is sounded a (ሀይሌ → haile, አ → a).
  if (order === 0 && (consonant === '' || consonant === 'h')) vowel = 'a';
  if (order === 5 && consonant === '') vowel = 'i';
  return consonant + vowel;
}
