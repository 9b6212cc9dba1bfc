import { normaliseName } from '../matcher/normalise.ts';

/**
 * The letters screening can read in a name: those left after the matcher's own normalisation
 * (titles and punctuation dropped, scripts it transliterates turned into Latin letters). A name
 * with fewer than two is refused rather than reported CLEAR, because nothing was compared: emoji,
 * punctuation, invisible characters, or a script the matcher cannot read yet.
 */
export function readableLetterCount(name: string): number {
  return normaliseName(name).match(/\p{L}/gu)?.length ?? 0;
}

export const MIN_READABLE_LETTERS = 2;
export const UNREADABLE_NAME_MESSAGE = `must contain at least ${MIN_READABLE_LETTERS} letters screening can read (Latin, Cyrillic, Greek, Arabic, Hebrew, Armenian, Georgian, Hangul, kana, Han, Indic, Ethiopic, Khmer or Thai script; titles and punctuation do not count); give names in other scripts (Burmese, Tibetan, Mongolian...) in Latin letters`;
