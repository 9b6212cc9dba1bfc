import { describe, expect, it } from 'vitest';
import { normaliseName, tokeniseName } from '../../lib/matcher/normalise.ts';
import { transliterate } from '../../lib/matcher/transliterate.ts';

describe('normaliseName', () => {
  it('folds case, diacritics and punctuation', () => {
    expect(normaliseName('José  María AZNAR-López')).toBe('jose maria aznar lopez');
    expect(normaliseName("O'Brien, Seán")).toBe('sean obrien');
    expect(normaliseName('Łukasz Müßig')).toBe('lukasz mussig');
  });

  it('puts "SURNAME, Given" in reading order', () => {
    expect(normaliseName('PUTIN, Vladimir Vladimirovich')).toBe('vladimir vladimirovich putin');
  });

  it('drops titles and honorifics but keeps a lone title as the name', () => {
    expect(normaliseName('Präsident Putin')).toBe('putin');
    expect(normaliseName('Sheikh Haji Dr. Mohammed Rahim')).toBe('mohammed rahim');
    expect(normaliseName('Президент Путин')).toBe('putin');
    expect(normaliseName('President')).toBe('president');
  });

  it('flags particles and joins the Abd al- prefix', () => {
    const tokens = tokeniseName('Bashar al-Assad');
    expect(tokens.map((t) => [t.text, t.particle])).toEqual([
      ['bashar', false],
      ['al', true],
      ['assad', false],
    ]);
    expect(normaliseName('Abd al-Rahman')).toBe('abdulrahman');
    expect(normaliseName('Abdurrahman')).toBe('abdulrahman');
    expect(normaliseName('ABDEL RAHMAN')).toBe('abdulrahman');
  });

  it('treats "Ben" opening a name as a given name', () => {
    expect(tokeniseName('Ben Smith')[0].particle).toBe(false);
    expect(tokeniseName('Moussa Ben Amor')[1].particle).toBe(true);
  });

  it('marks initials', () => {
    expect(tokeniseName('V. V. Putin').map((t) => t.initial)).toEqual([true, true, false]);
  });
});

describe('transliterate', () => {
  it('renders Cyrillic, Greek, Arabic, Hebrew, Armenian and Georgian in Latin letters', () => {
    expect(normaliseName('Путин')).toBe('putin');
    expect(normaliseName('Владимир Путин')).toBe('vladimir putin');
    expect(normaliseName('Πούτιν')).toBe('putin');
    expect(normaliseName('بوتين')).toBe('butin');
    expect(normaliseName('Պուտին')).toBe('putin');
    expect(normaliseName('პუტინი')).toBe('putini');
    expect(normaliseName('משה')).toBe('mshe');
  });

  it('splits a Korean family name from the given name', () => {
    expect(normaliseName('김정은')).toBe('kim jongun');
  });

  it('romanises kana after Hepburn, with combined, doubled and long syllables as lists write them', () => {
    expect(normaliseName('トウキョウ')).toBe('tokyo');
    expect(normaliseName('きょうこ')).toBe('kyoko');
    expect(normaliseName('ホッカイドウ')).toBe('hokkaido');
    expect(normaliseName('ジョン・スミス')).toBe('jon sumisu');
  });

  it('romanises Ethiopic, Khmer and Thai script', () => {
    expect(normaliseName('ሀይሌ')).toBe('hayle');
    expect(normaliseName('ቴዎድሮስ')).toBe('tewodros');
    expect(normaliseName('ចាន់')).toBe('chan');
    expect(normaliseName('ทักษิณ')).toBe('thaksin');
  });

  it('leaves Latin text unchanged', () => {
    expect(transliterate('Vladimir Putin')).toBe('Vladimir Putin');
  });
});

describe('readings in other Latin alphabets', () => {
  // Listed people's names as Polish, Czech, Latvian and Turkish customers write them.
  const readings = (name: string) => tokeniseName(name).map((t) => t.readings);

  it('reads Polish, Czech and Baltic letter choices as the lists spell them', () => {
    const [given, surname] = readings('Witalij Zacharczenko');
    expect(given).toContain('vitaliy');
    expect(surname).toContain('zakharchenko');
    expect(readings('Wladimir Wasiljewicz')[1]).toContain('vasilyevich');
  });

  it('reads Turkish j as zh and c as j', () => {
    expect(readings('Adilet Jakypovic')[1]).toContain('zhakypovij');
    expect(readings('Cemil Bayik')[0]).toContain('jemil');
  });

  it('spells out háček and cedilla letters before folding them away', () => {
    expect(tokeniseName('Hassan Ajaš')[1]).toMatchObject({ text: 'ajas' });
    expect(readings('Hassan Ajaš')[1]).toEqual(expect.arrayContaining(['ajash', 'ayash']));
  });

  it('gives none to a name without those letters', () => {
    expect(readings('Osama bin Laden')).toEqual([[], [], []]);
  });
});
