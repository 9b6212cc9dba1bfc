import { describe, expect, it } from 'vitest';
import { countryNameForCode, normaliseCountries, normaliseCountry } from '../../lib/watchlists/countries.ts';

describe('normaliseCountry', () => {
  it.each([
    ['Russian', 'Russia'],
    ['Russian Federation', 'Russia'],
    ['Iranian', 'Iran'],
    ['Iran (Islamic Republic of)', 'Iran'],
    ['British', 'United Kingdom'],
    ['UK', 'United Kingdom'],
    ['united kingdom', 'United Kingdom'],
    ['United Kingdom of Great Britain and Northern Ireland', 'United Kingdom'],
    ['Korea, North', 'North Korea'],
    ["Democratic People's Republic of Korea", 'North Korea'],
    ['Congo, Democratic Republic of the', 'Democratic Republic of the Congo'],
    ['Congo (Democratic Republic)', 'Democratic Republic of the Congo'],
    ['Syrian Arab Republic', 'Syria'],
    ['Türkiye', 'Turkey'],
    ["Côte d'Ivoire", "Cote d'Ivoire"],
    ['Viet Nam', 'Vietnam'],
    ['American', 'United States'],
    ['Iraq (previous address)', 'Iraq'],
    ['The Gambia', 'Gambia'],
    ['Region: Gaza', 'Palestine'],
    ['GB', 'United Kingdom'],
  ])('"%s" → %s', (text, expected) => {
    expect(normaliseCountry(text)).toBe(expected);
  });

  it('answers undefined for text that names no country', () => {
    expect(normaliseCountry('Unknown')).toBeUndefined();
    expect(normaliseCountry('')).toBeUndefined();
    expect(normaliseCountry(undefined)).toBeUndefined();
    expect(normaliseCountry('in')).toBeUndefined();
  });

  it('splits fields naming several countries', () => {
    expect(normaliseCountries('(1) Russia (2) Ukraine')).toEqual(['Russia', 'Ukraine']);
    expect(normaliseCountries('Palestinian and possibly Lebanese')).toEqual(['Palestine', 'Lebanon']);
    expect(normaliseCountries('(1) Bosnia and Herzegovina (2) Serbia')).toEqual([
      'Bosnia and Herzegovina',
      'Serbia',
    ]);
  });

  it('names ISO alpha-2 codes', () => {
    expect(countryNameForCode('ru')).toBe('Russia');
    expect(countryNameForCode('KP')).toBe('North Korea');
    expect(countryNameForCode('UNK')).toBeUndefined();
  });
});
