/**
 * The classes of matching failure, on the shipped lists: named listed people first, then every
 * class as generated from the lists by eval/classes.ts (its dev half; the held-out half is
 * measured by `npm run eval` only).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { issueClasses, measureClass } from '../../eval/classes.ts';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { type Match, riskRank } from '../../lib/matcher/types.ts';
import type { WatchlistSnapshot } from '../../lib/watchlists/types.ts';
import { CHECK_TYPES } from '../../lib/watchlists/types.ts';

let snapshot: WatchlistSnapshot;
let matcher: Matcher;
beforeAll(() => {
  snapshot = loadSnapshot();
  matcher = createMatcher(snapshot);
}, 120_000);

/** The match on one listed person, or undefined when the screen does not report it. */
function matchOn(entityId: string, name: string, dob?: string): Match | undefined {
  const r = matcher.screen({ name, dob }, CHECK_TYPES);
  const all = [
    ...(r.sanctions_result?.matches ?? []),
    ...(r.pep_result?.matches ?? []),
    ...(r.criminal_result?.interpol_hits ?? []),
    ...(r.criminal_result?.fbi_hits ?? []),
  ];
  return all.find((m) => m.list_id === 'ofac_sdn' && m.entity_id === entityId);
}

const rank = (m: Match | undefined) => riskRank(m?.risk_level ?? 'CLEAR');

describe('recall classes', () => {
  it('1: a clipped given name with the exact rare surname and the DOB is at least MEDIUM', () => {
    const m = matchOn('6860', 'Jos Gilboa', '1943-04-08');
    expect(m?.primary_name).toBe('GILBOA, Joseph');
    expect(rank(m)).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
    expect(m?.explanation.name.detail).toContain('rare surname corroborated by the full date of birth');
    // Without the DOB it stays below MEDIUM: a surname and a different first name are a lead.
    expect(rank(matchOn('6860', 'Jos Gilboa'))).toBeLessThan(riskRank('MEDIUM'));
  });

  it('2: a rare surname alone is MEDIUM, a common one is not', () => {
    const m = matchOn('6860', 'Gilboa');
    expect(m?.risk_level).toBe('MEDIUM');
    expect(m?.explanation.name.detail).toContain('rare surname alone');
    const common = matcher.screen({ name: 'Garcia' }, CHECK_TYPES);
    expect(riskRank(common.risk_level)).toBeLessThan(riskRank('MEDIUM'));
  });

  it('3: two or three name parts written as one are split against the listed parts', () => {
    expect(
      matcher.screen({ name: 'nayifhawatma' }, ['sanctions']).sanctions_result?.matches[0],
    ).toMatchObject({
      primary_name: 'HAWATMA, Nayif',
    });
    const three = matcher.screen({ name: 'MuhammadHusaynFadlallah' }, ['sanctions']).sanctions_result;
    expect(three?.matches[0].primary_name).toBe('FADLALLAH, Shaykh Muhammad Husayn');
    expect(riskRank(three?.risk_level ?? 'CLEAR')).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
  });

  it('5: Polish, Czech, Baltic and Turkish letter choices are read as the lists spell the name', () => {
    for (const [entity, written, listed] of [
      ['10140', 'Wladimir Wasiljewicz Rusakewicz', 'RUSAKEVICH, Vladimir Vasilyevich'],
      ['16601', 'Witalij Jurijowycz Zacharczenko', 'ZAKHARCHENKO, Vitaliy Yuriyovych'],
      ['16167', 'Bulut Jajla', 'YAYLA, Bulut'],
      ['12535', 'Hassan Ajaš', 'AYASH, Hassan'],
    ]) {
      const m = matchOn(entity, written);
      expect(m?.primary_name).toBe(listed);
      expect(rank(m)).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
    }
  });
});

describe('recall classes: heavy typos with the date of birth', () => {
  it('6: three typos across a two-part name with the listed full DOB are at least MEDIUM', () => {
    // GILBOA, Joseph (OFAC 6860), born 1943-04-08: one typo in the given name, two in the surname.
    const m = matchOn('6860', 'Joteph Gimbpa', '1943-04-08');
    expect(m?.primary_name).toBe('GILBOA, Joseph');
    expect(rank(m)).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
    expect(m?.explanation.dob.status).toBe('matched');
    // Without the date the spelling alone is too far to report him at all.
    expect(rank(matchOn('6860', 'Joteph Gimbpa'))).toBeLessThan(riskRank('MEDIUM'));
    // The date alone finds no one: a different name born that day is not his match.
    expect(matchOn('6860', 'Maria Lopez', '1943-04-08')).toBeUndefined();
  });
});

describe('class 4: names in Han, kana and Indic scripts', () => {
  it('finds a listed Chinese name written in Han, raised to CRITICAL only by the date of birth', () => {
    // OFAC 47814 ZHAO, Guangzong (born 1985-11-12); the UK list prints his name as 赵光宗.
    const withDob = matchOn('47814', '赵光宗', '1985-11-12');
    expect(withDob?.risk_level).toBe('CRITICAL');
    expect(withDob?.explanation.dob.status).toBe('matched');
    // Without it, a three-syllable Chinese name is carried by too many people to be more than
    // MEDIUM; written exactly as listed it is not LOW either (issue 37: the contract's LOW means
    // "likely a different person", which a name alone cannot show of an exact namesake).
    const withoutDob = matchOn('47814', '赵光宗');
    expect(withoutDob?.risk_level).toBe('MEDIUM');
    expect(withoutDob?.explanation.name.detail).toContain('short Chinese name');
    expect(withoutDob?.explanation.name.detail).toContain("the listed person's full name exactly");
  });

  it('finds Putin written in Devanagari, Kannada and Bengali, without a date of birth and with it', () => {
    // OpenSanctions Putin name variants; Bengali has no v and writes ভ (bh), a partial match.
    // Two name parts ("Vladimir" common) are MEDIUM without the date of birth, HIGH or more with it.
    const levels = (dob?: string) =>
      ['व्लादिमीर पुतिन', 'ವ್ಲಾದಿಮಿರ್ ಪುತಿನ್', 'ভ্লাদিমির পুতিন'].map((name) => {
        const r = matcher.screen({ name, dob }, ['sanctions']);
        return r.sanctions_result?.matches.find((x) => x.primary_name.toUpperCase().includes('PUTIN'))
          ?.risk_level;
      });
    expect(levels()).toEqual(['MEDIUM', 'MEDIUM', 'MEDIUM']);
    expect(levels('1952-10-07')).toEqual(['CRITICAL', 'CRITICAL', 'HIGH']);
  });
});

describe('false-alert classes', () => {
  it("7: OFAC's remark aliases are weak; one name part of a weak alias alone stays LOW", () => {
    const m = matchOn('4107', 'Lucas');
    expect(m?.matched_name).toBe('LUCAS');
    expect(m?.risk_level).toBe('LOW');
    expect(m?.explanation.name.detail).toContain('weak alias only');
  });

  it('8: a common two-part name on an alias is not HIGH without the DOB', () => {
    const m = matchOn('6704', 'Luis Lopez');
    expect(m?.matched_name).toBe('LOPEZ, Luis');
    expect(m?.risk_level).toBe('MEDIUM');
    expect(m?.explanation.name.detail).toContain('common name');
  });

  it('8: a very common given name makes up for a less common family name, on the alias too', () => {
    // JIBRIL, Ahmad is an alias of JABRIL, Ahmad: Ahmad is on hundreds of listed people.
    const m = matchOn('2683', 'Ahmad Jibril');
    expect(m?.matched_name).toBe('JIBRIL, Ahmad');
    expect(m?.risk_level).toBe('MEDIUM');
    expect(m?.explanation.name.detail).toContain('common name');
    // With the listed date of birth (a year) the name is corroborated: no longer held down.
    const corroborated = matchOn('2683', 'Ahmad Jibril', '1938');
    expect(corroborated?.risk_level).toBe('CRITICAL');
    expect(corroborated?.explanation.name.detail).not.toContain('common name');
    // A family name on a handful of listed people is rare: the common given name does not make the
    // name common. Two parts without the date of birth are MEDIUM all the same (results.ts), and
    // the full name is HIGH.
    const putin = matchOn('35096', 'Vladimir Putin');
    expect(putin?.risk_level).toBe('MEDIUM');
    expect(putin?.explanation.name.detail).not.toContain('common name');
    expect(putin?.explanation.name.detail).toContain('two name parts, not both rare');
    expect(matchOn('35096', 'Vladimir Vladimirovich Putin')?.risk_level).toBe('HIGH');
    // Three parts each common are a common name too (KHAN, Nasir Ali: OFAC 6864).
    const khan = matchOn('6864', 'Nasir Ali Khan');
    expect(khan?.risk_level).toBe('MEDIUM');
    expect(khan?.explanation.name.detail).toContain('common name');
    // Shaped like a patronymic, a family name on one family is still rare (it had been held down).
    const yanukovych = matchOn('16641', 'Viktor Yanukovych');
    expect(yanukovych?.risk_level).toBe('MEDIUM');
    expect(yanukovych?.explanation.name.detail).not.toContain('common name');
    expect(matchOn('16641', 'Viktor Fedorovych Yanukovych')?.risk_level).toBe('HIGH');
  });

  it('8: a part counts once per person however many lists repeat it; a common alias stays below HIGH', () => {
    // SALIMI, Hosein (OFAC 10584): eleven listed records bear Salimi, six of them his own unlinked
    // listings (UN, EU three times, UK, OFAC); three distinct people in all, so his own name
    // is not a common name (it had been held to MEDIUM as one); two parts without a DOB are MEDIUM
    // all the same.
    const salimi = matchOn('10584', 'Hosein Salimi');
    expect(salimi?.risk_level).toBe('MEDIUM');
    expect(salimi?.explanation.name.detail).not.toContain('common name');
    expect(salimi?.explanation.name.detail).toContain('two name parts, not both rare');
    // KHAN, Asad, an alias of MOHAMMADHASNI, Haji Asad Khan Zarkari (OFAC 10898): both parts are
    // borne by dozens of distinct listed people, so it stays a common name.
    const khan = matchOn('10898', 'Asad Khan');
    expect(khan?.matched_name).toBe('KHAN, Asad');
    expect(khan?.risk_level).toBe('MEDIUM');
    expect(khan?.explanation.name.detail).toContain('common name');
  });

  it('9: given name and patronymic without the listed surname are not HIGH', () => {
    const m = matchOn('35096', 'Vladimir Vladimirovich');
    expect(rank(m)).toBeLessThan(riskRank('HIGH'));
    expect(m?.explanation.name.detail).toContain('surname missing');
  });

  it('10: titles count for nothing', () => {
    for (const [entity, plain, titled] of [
      ['35096', 'Vladimir Putin', 'Hajji Vladimir Putin'],
      ['2681', 'Nayif Hawatma', 'Sheikh Nayif Hawatma'],
      ['4107', 'Lucas', 'Dr Lucas'],
    ]) {
      const a = matchOn(entity, plain);
      const b = matchOn(entity, titled);
      expect(a).toBeDefined();
      expect([b?.risk_level, b?.name_score]).toEqual([a?.risk_level, a?.name_score]);
    }
  });
});

describe('every class, generated from the lists (dev half)', () => {
  // The least share of each class's cases that must pass; measured figures are in
  // docs/benchmarks-and-evaluation.md#benchmarks-and-evaluation.
  const FLOOR: Record<number, number> = {
    1: 0.95,
    2: 0.95,
    3: 0.95,
    4: 0.9,
    5: 0.99,
    6: 0.99,
    7: 0.9,
    // Arabic-script aliases now read with their vowels ("أسامة رمضان" → "usama ramadan") join
    // this class as common two-part names and fare exactly as their Latin spellings (0.777 on dev).
    8: 0.77,
    9: 1,
    10: 0.98,
  };
  // Up to 400 cases per class, screened one by one, and class 4 builds a matcher of its own: about
  // 5 s on a quiet machine, over a minute on a loaded one, hence its own timeout.
  it('passes each class at least at its floor', { timeout: 240_000 }, () => {
    for (const c of issueClasses(snapshot)) {
      const f = measureClass(matcher, c, ['dev']).dev;
      expect({ class: c.id, share: f.passed / f.n >= FLOOR[c.id] }).toEqual({ class: c.id, share: true });
    }
  });
});
