/**
 * Other Latin alphabets' spellings of one name. The lists romanise Slavic, Turkic and Arabic names
 * the English way ("Vasilyevich", "Zakharchenko", "Yayla"); a Polish, Czech, Slovak, Latvian,
 * Lithuanian or Turkish customer writes the same sounds with the letters of their own language
 * ("Wasiljewicz", "Zacharczenko", "Jajla", "Jakypovic" for "Zhakypovich"). Each rewriting below
 * reads a folded token as one of those languages would spell it and gives the English-style
 * spelling; a token is the listed one when a reading of either side is the other's spelling (see
 * `compareTokens`), so the letter choices are folded without counting them as typos.
 */

/** Polish, Czech/Slovak and Baltic letter choices, in the order they are rewritten. */
const WEST_SLAVIC_AND_BALTIC: readonly (readonly [RegExp, string])[] = [
  // ch is the English kh ("Tarchan" / "Tarkhan"); rewritten first, so cz → ch below stays ch.
  [/ch/g, 'kh'],
  [/sz/g, 'sh'],
  [/cz/g, 'ch'],
  [/rz/g, 'zh'],
  [/w/g, 'v'],
  // j is the English consonant y ("Jurij" / "Yuriy", "Mitjaev" / "Mityaev").
  [/j/g, 'y'],
];
/**
 * Turkish and Kazakh/Kyrgyz Latin j is the English zh ("Jakypovic" / "Zhakypovich"), and Turkish
 * c the English j ("Cemil" / "Jemil"; c before h is the English ch, so left alone).
 */
const TURKIC: readonly (readonly [RegExp, string])[] = [
  [/j/g, 'zh'],
  [/c(?!h)/g, 'j'],
];

/**
 * German umlauts written as e-digraphs ("Mueller", "Schroeder", "Jaeger"), read back as the
 * folded umlaut the lists' "Müller" becomes ("muller"); not after q, where u is Spanish and silent
 * ("Enrique"), nor the "-ael" of Michael and Rafael.
 */
const GERMAN_DIGRAPH_RE = /(?<!q)ue|oe|ae(?!l$)/g;

/** Letters or pairs that one of the readings rewrites: most English-spelt tokens have none. */
const REWRITTEN_RE = /[wjc]|sz|rz|ue|oe|ae/;

/** Shared by every token without readings: most listed tokens, so none allocates its own. */
const NO_READINGS: readonly string[] = Object.freeze([]);

function rewrite(token: string, rules: readonly (readonly [RegExp, string])[]): string {
  let out = token;
  for (const [from, to] of rules) out = out.replace(from, to);
  return out;
}

/**
 * The English-style spellings of a folded token read as Polish, Czech, Slovak or Baltic, and as
 * Turkish, and its German e-digraphs as umlauts ([] when the token has none of the letters these
 * languages write differently).
 */
export function otherAlphabetReadings(token: string): readonly string[] {
  if (token.length < 2 || !REWRITTEN_RE.test(token)) return NO_READINGS;
  const readings: string[] = [];
  const slavic = rewrite(token, WEST_SLAVIC_AND_BALTIC);
  if (slavic !== token) readings.push(slavic);
  const turkic = rewrite(token, TURKIC);
  if (turkic !== token && turkic !== slavic) readings.push(turkic);
  const german = token.replace(GERMAN_DIGRAPH_RE, (d) => d[0]);
  if (german !== token && german.length >= 3 && !readings.includes(german)) readings.push(german);
  return readings.length > 0 ? readings : NO_READINGS;
}

/**
 * Letters with a háček or cedilla that the English-style lists write as two letters, and the
 * German umlauts as German writes them without the dots (and passports, ICAO 9303: Ö → OE).
 */
const DIGRAPH_LETTERS: Record<string, string> = {
  š: 'sh',
  ž: 'zh',
  č: 'ch',
  ş: 'sh',
  ç: 'ch',
  ș: 'sh',
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
};
const DIGRAPH_LETTERS_RE = /[šžčşçșäöü]/giu;

/**
 * The name with its háček and cedilla letters written as the English digraphs ("Ajaš" →
 * "Ajash") and its umlauts as e-digraphs ("Müller" → "Mueller"), or undefined when it has none:
 * folding diacritics away alone would give "Ajas", "Muller".
 */
export function withDigraphs(name: string): string | undefined {
  DIGRAPH_LETTERS_RE.lastIndex = 0;
  if (!DIGRAPH_LETTERS_RE.test(name)) return undefined;
  return name.replace(DIGRAPH_LETTERS_RE, (c) => {
    const lower = DIGRAPH_LETTERS[c.toLowerCase()];
    return c === c.toLowerCase() ? lower : lower.toUpperCase();
  });
}
