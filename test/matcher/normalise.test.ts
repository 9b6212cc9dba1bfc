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

  it('reads the article run into the name after "Abd" as the article ("Abd alKhaliq" is Abd al-Khaliq)', () => {
    expect(normaliseName('Abd alKhaliq')).toBe(normaliseName('Abd al-Khaliq'));
    expect(normaliseName('Abd AlAziz')).toBe('abdulaziz');
    expect(normaliseName('Abdulalaziz')).toBe('abdulaziz');
    // A name that starts with those letters is not an article run in: al-Alim, al-Ali.
    expect(normaliseName('Abd Alim')).toBe('abdulalim');
    expect(normaliseName('Abd Ali')).toBe('abdulali');
  });

  it('reads the article run into Hajj as the list writes it apart ("elHajj" is "el-Hajj")', () => {
    expect(normaliseName('Hassan elHajj HASSAN')).toBe(normaliseName('HASSAN, Hassan el-Hajj'));
    // "Alsheikh" is also a family name (Al ash-Sheikh): not split.
    expect(normaliseName('Elsheikh Ali')).toBe('elsheikh ali');
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
  });

  it('folds Japanese phonotactics out of a foreign name in katakana (・, ー, small vowels)', () => {
    // OpenSanctions Putin variants: the vowel after a final consonant goes, チ is "ti".
    expect(normaliseName('ウラジーミル・プーチン')).toBe('urajimir putin');
    expect(normaliseName('ジョン・スミス')).toBe('jon smis');
    expect(normaliseName('ヴィクトル')).toBe('viktor');
  });

  it('reads a Chinese name in Han as surname and joined given name, in pinyin (pinyin-pro)', () => {
    expect(normaliseName('习近平')).toBe('xi jinping');
    // EU FSF EU.6251.70 "ZHU Hailun" / 朱海仑; UK FCDO GHR0181 "Guoju Yin" / 尹國駒 (traditional).
    expect(normaliseName('朱海仑')).toBe('zhu hailun');
    expect(normaliseName('尹國駒')).toBe('yin guoju');
    // A compound surname is one word; a surname read as a surname (单 shan, not dan).
    expect(normaliseName('欧阳修')).toBe('ouyang xiu');
    expect(normaliseName('单雄信')).toBe('shan xiongxin');
    // A foreign name, one word per part between the middle dots, is transcribed back (夫 -ov, 尔 r):
    // UK FCDO RUS3410 Grant AKOPOV, RUS3411 Oleg Igorevich FISHELEV.
    expect(normaliseName('阿科波夫格兰特')).toBe('akopov glant');
    expect(normaliseName('飞蛇列夫奥列格·伊戈尔耶维奇')).toBe('feishelev oleg igoryevich');
    // Beside kana, Han is Japanese kanji, whose readings pinyin does not give: left unread.
    expect(normaliseName('さゆり 中村')).toBe('sayuri');
  });

  it('reads Indic scripts through IAST (sanscript), without the inherent vowels Hindi drops', () => {
    expect(normaliseName('व्लादिमीर पुतिन')).toBe('vladimir putin');
    expect(normaliseName('ವ್ಲಾದಿಮಿರ್ ಪುತಿನ್')).toBe('vladimir putin');
    expect(normaliseName('ভ্লাদিমির পুতিন')).toBe('bhladimir putin');
    expect(normaliseName('कमल अधिकारी')).toBe('kamal adhikari');
    expect(normaliseName('चोपरा')).toBe('chopra');
    expect(normaliseName('रामचन्द्र')).toBe('ramchandra');
    expect(normaliseName('सिंह')).toBe('singh');
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
