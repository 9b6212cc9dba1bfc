/**
 * The token classes of issue 22 item 4 (eval/token-classes.ts), on the shipped lists: real listed
 * people first, then every class as generated from the lists (its dev half; the held-out half is
 * measured by `npm run eval` only).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { matchOn as matchOnListing } from '../../eval/classes.ts';
import { passes, type TokenClass, tokenClasses } from '../../eval/token-classes.ts';
import { normaliseName, tokeniseName } from '../../lib/matcher/normalise.ts';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { type Match, riskRank } from '../../lib/matcher/types.ts';
import type { ListId } from '../../lib/watchlists/types.ts';

let matcher: Matcher;
let classes: TokenClass[];
beforeAll(() => {
  const shipped = loadSnapshot();
  matcher = createMatcher(shipped);
  classes = tokenClasses(shipped);
}, 120_000);

function matchOn(listId: ListId, entityId: string, name: string, dob?: string): Match | undefined {
  return matchOnListing(matcher, { list_id: listId, entity_id: entityId }, name, dob);
}

const rank = (m: Match | undefined) => riskRank(m?.risk_level ?? 'CLEAR');

describe('a whole surname is not a listed initial', () => {
  it('"Elise Marchand" is not "Elise M. Stefanik"; her own name still is', () => {
    // US Congress S001196: Marchand faces Stefanik, a different surname, not the initial M.
    expect(rank(matchOn('us_congress_pep', 'S001196', 'Élise Marchand'))).toBeLessThan(riskRank('MEDIUM'));
    expect(matchOn('us_congress_pep', 'S001196', 'Elise Stefanik')?.risk_level).toBe('HIGH');
    expect(matchOn('us_congress_pep', 'S001196', 'Elise Marie Stefanik')?.risk_level).toBe('HIGH');
  });

  it('an initial still stands for a given name ("V. V. Putin")', () => {
    expect(rank(matchOn('ofac_sdn', '35096', 'V. V. Putin'))).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
  });
});

describe('a reversed two-part name with a near part is not a strong match', () => {
  it('"Lucas Franco" is below HIGH on "Frank D. Lucas"; his name reversed as written is still HIGH', () => {
    // US Congress L000491: Franco is a typo away from Frank but another name, and the order is crossed.
    expect(rank(matchOn('us_congress_pep', 'L000491', 'Lucas Franco'))).toBeLessThan(riskRank('HIGH'));
    // Issue 37: Frank and Lucas are common names, so his name is held at MEDIUM by name alone,
    // and a near spelling of them (Franco for Frank) is a lead, LOW.
    expect(matchOn('us_congress_pep', 'L000491', 'Lucas Frank')?.risk_level).toBe('MEDIUM');
    expect(matchOn('us_congress_pep', 'L000491', 'Franco Lucas')?.risk_level).toBe('LOW');
  });
});

describe('the Abd al- prefix takes neither Abdu / Abdou nor the Somali particle Aw', () => {
  it('keeps Abdu and Abdou as given names unless the article follows', () => {
    const written = ['Abdou Karim', 'Abdu Salam', 'Abdou el-Karim', 'Ahmed Abdi Aw Ali', 'Abd al-Rahman'];
    expect(Object.fromEntries(written.map((n) => [n, normaliseName(n)]))).toEqual({
      'Abdou Karim': 'abdou karim',
      'Abdu Salam': 'abdu salam',
      'Abdou el-Karim': 'abdulkarim',
      'Ahmed Abdi Aw Ali': 'ahmed abdi aw ali',
      'Abd al-Rahman': 'abdulrahman',
    });
  });

  it('"Abdou Karim" is not HIGH on the alias ABDUL KARIM; "Abdi Aw Mohamed" is not an alert on MOHAMED ABDULLA', () => {
    // OFAC 9615 (GUNAWAN, Gun Gun Rusman) has the alias "ABDUL KARIM", one name, Abd al-Karim.
    expect(rank(matchOn('ofac_sdn', '9615', 'Abdou Karim'))).toBeLessThan(riskRank('HIGH'));
    // INTERPOL 2012/311831: "Abdi Aw" had become "Abdulaw", a typo away from Abdulla.
    expect(rank(matchOn('interpol_red', '2012/311831', 'Abdi Aw Mohamed'))).toBeLessThan(riskRank('MEDIUM'));
    // People listed under those names are still found under them.
    expect(matchOn('ofac_sdn', '11311', 'Ahmed Abdi Aw-Mohamed')?.risk_level).toBe('HIGH');
    expect(matchOn('world_leaders_pep', 'Niger|Abdou MAMAN', 'Abdou Maman')?.risk_level).toBe('HIGH');
  });
});

describe('German umlauts written ae / oe / ue are the same letters', () => {
  it('reads e-digraphs as umlauts and umlauts as e-digraphs, not the -ael of Michael', () => {
    const readings = (name: string) => tokeniseName(name).flatMap((t) => t.readings);
    expect(readings('Mueller Schroeder Jaeger')).toEqual(
      expect.arrayContaining(['muller', 'schroder', 'jager']),
    );
    expect(readings('Müller')).toEqual(expect.arrayContaining(['mueller']));
    expect(readings('Michael Rafael Enrique')).not.toEqual(expect.arrayContaining(['michal']));
    expect(readings('Michael Rafael Enrique')).not.toEqual(expect.arrayContaining(['rafal']));
    expect(readings('Michael Rafael Enrique')).not.toEqual(expect.arrayContaining(['enriqe']));
  });

  it('"Thomas Roeper" is at the level of his listed spelling Thomas RÖPER', () => {
    // EU.13154.42, no DOB listed: the dotless spelling had been a typo away, a level below. Two
    // name parts without a DOB are MEDIUM (results.ts).
    const listed = matchOn('eu_fsf', 'EU.13154.42', 'Thomas Röper')?.risk_level;
    expect(listed).toBe('MEDIUM');
    expect(matchOn('eu_fsf', 'EU.13154.42', 'Thomas Roeper')?.risk_level).toBe(listed);
    // Read as the same letters (0.95 a part), not a typo (0.80 to 0.92): the strong band.
    expect(matchOn('eu_fsf', 'EU.13154.42', 'Thomas Roeper')?.name_score).toBeGreaterThanOrEqual(0.95);
  });
});

describe('a name that repeats a part keeps its person after a one-letter change', () => {
  it('finds "Aung Aung" and "Abdullah Abdullah" with one part misspelt', () => {
    // Every "Aung X" had been credited twice through one Aung and crowded them off the shortlist.
    expect(rank(matchOn('au_dfat', '3599', 'Aung Auog'))).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
    expect(rank(matchOn('ca_sema', 'Syria/Part 2/212', 'Abdullah Abdumlah'))).toBeGreaterThanOrEqual(
      riskRank('MEDIUM'),
    );
  });

  it('pairs a repeated part in place, not across the "ben" of the lineage', () => {
    // EU.3410.55, born 1955-09-25: the exact Mohamed had paired with the father's Mohamed.
    const m = matchOn(
      'eu_fsf',
      'EU.3410.55',
      'Mohbmed Mourad Ben Mohamed Ben Rehouma TRABELSI',
      '1955-09-25',
    );
    expect(m?.risk_level).toBe('CRITICAL');
  });
});

describe('an OFAC name with its article run into the name', () => {
  it('finds "Ahmad ELKHANSA" as EL KHANSA, Ahmad and "Hassan ALRAYS" as AL-RAYS, Hassan', () => {
    // At the level of the names as listed (two parts without a DOB: MEDIUM, results.ts).
    for (const [id, listed, runTogether] of [
      ['12994', 'Ahmad EL KHANSA', 'Ahmad ELKHANSA'],
      ['21947', 'Hassan AL-RAYS', 'Hassan ALRAYS'],
    ]) {
      const level = matchOn('ofac_sdn', id, listed)?.risk_level;
      expect(rank(matchOn('ofac_sdn', id, runTogether))).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
      expect(matchOn('ofac_sdn', id, runTogether)?.risk_level).toBe(level);
    }
  });
});

describe('an OFAC name with its middle dropped', () => {
  it('"Talib ISMAIL" is an alert on ISMAIL, Talib Husayn Ali Jarak; two common parts are not', () => {
    // Three middle parts at a fifth of their weight each had sunk the first and last name to LOW.
    expect(rank(matchOn('ofac_sdn', '33332', 'Talib ISMAIL'))).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
    // Mohamed and Abbas are each on many listed people: first and last name of many.
    expect(rank(matchOn('ofac_sdn', '46818', 'Mohamed ABBAS'))).toBeLessThan(riskRank('MEDIUM'));
  });

  it('"Ahmed SIHAB" is an alert on SIHAB, Ahmed Abdulrahman Sihab Ahmed (it had been LOW)', () => {
    // The listed name repeats its last part in the middle; the query's "Sihab" had been paired
    // with that one, which is not the last part.
    expect(rank(matchOn('ofac_sdn', '15208', 'Ahmed SIHAB'))).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
  });

  it('"Muhammad AL-BAHTIYTI" is an alert on AL-BAHTIYTI, Muhammad Rab\'a al-Sayid (it had been LOW)', () => {
    // The person's best-scoring name was a near alias ("AL-BAHTITI, Muhammad Mahmud"), which the
    // results step holds to LOW; the primary name, spelt alike at both ends, is the stronger match.
    const m = matchOn('ofac_sdn', '11379', 'Muhammad AL-BAHTIYTI');
    expect(m?.risk_level).toBe('MEDIUM');
    expect(m?.matched_name).toBe("AL-BAHTIYTI, Muhammad Rab'a al-Sayid");
  });
});

describe('a two-syllable given name written as one', () => {
  it('finds "Paul CHAN Mopo" as Paul CHAN Mo-po (it had been CLEAR: "Mopo" faced "Mo" and "Po" as a conflict)', () => {
    expect(matchOn('world_leaders_pep', 'China|Paul CHAN Mo-po', 'Paul CHAN Mopo')?.risk_level).toBe('HIGH');
  });
});

describe('a given name written as one where the list writes two parts', () => {
  it('finds "Pyongchol RI" as Pyong-Chol RI (it had been CLEAR: "Pyongchol" is a letter from "Kyongchol")', () => {
    // A query token near a listed one is not split into two parts, and its two parts had given
    // the listed name no candidate evidence, so it never reached scoring.
    expect(rank(matchOn('un_sc', '6908654', 'Pyongchol RI'))).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
  });
});

describe('an Abd-name cut short to "Abd" or "Abdul"', () => {
  it('finds "Abdul Shahlai" as Abdul Reza SHAHLAI (it had been LOW: "Abdul" was an unexplained part)', () => {
    // The query's one token "abdulshahlai" meets SHAHLAI as its short form; the listed "Abdul Reza"
    // was then a listed part the query contradicted.
    const shahlai = matchOn('ofac_sdn', '11177', 'Abdul Shahlai');
    expect(shahlai?.risk_level).toBe('MEDIUM');
    expect(shahlai?.explanation.name.detail).toContain('abdul≈abdulreza');
    expect(matchOn('un_sc', '110961', 'Abdul Nyazi')?.risk_level).toBe('MEDIUM');
    expect(matchOn('fbi_wanted', 'fbi-aca6fe3805bcf156', 'Abd Maghrebi')?.risk_level).toBe('MEDIUM');
  });

  it('reads an Abd-name the lists carry as that name, not as one cut short ("Abdul Rashid")', () => {
    // Abdul Rashid is Abd al-Rashid, a given name: not "Abdul Majid" cut short before RASHID.
    expect(rank(matchOn('ofac_sdn', '10593', 'Abdul Rashid'))).toBeLessThan(riskRank('MEDIUM'));
  });
});

describe('an Abd-name with its article run into the name', () => {
  it('finds "Abd alKhaliq AL-HUTHI" as AL-HUTHI, Abd al-Khaliq (it had been CLEAR: "abdulalkhaliq")', () => {
    expect(rank(matchOn('ofac_sdn', '17368', 'Abd alKhaliq AL-HUTHI'))).toBeGreaterThanOrEqual(
      riskRank('MEDIUM'),
    );
    expect(rank(matchOn('ofac_sdn', '2678', 'Abd AlAziz AWDA'))).toBeGreaterThanOrEqual(riskRank('MEDIUM'));
  });
});

describe('an honorific with its article run in', () => {
  it('finds "Hassan elHajj HASSAN" as HASSAN, Hassan el-Hajj (it had been CLEAR: "elhajj" was kept as a name)', () => {
    // The list's "el-Hajj" is the honorific al-Hajj, dropped as a title on both sides.
    expect(rank(matchOn('ofac_sdn', '18050', 'Hassan elHajj HASSAN'))).toBeGreaterThanOrEqual(
      riskRank('MEDIUM'),
    );
  });
});

describe('every token class, generated from the lists (dev half)', () => {
  // The least share of each class's cases that must pass on dev; measured figures are in
  // docs/benchmarks-and-evaluation.md.
  const FLOOR: Record<string, number> = {
    initial: 0.99,
    reversed: 0.99,
    abdu: 0.99,
    aw: 0.99,
    umlaut: 0.99,
    repeated: 0.98,
    // Issue 37: a very common given name and surname without the middle ("Vladimir IVANOV" for
    // IVANOV, Vladimir Aleksandrovich) are a lead, not an alert, by name alone (0.97 before). So is
    // "Mohammad AL-SAYYED" once Sayyed is read as the table's Sayed (0.951 → 0.946).
    'ofac-middle': 0.94,
    'ofac-particle': 0.94,
  };
  it('passes each class with a fix at least at its floor', () => {
    for (const c of classes) {
      const floor = FLOOR[c.id];
      if (floor === undefined) continue;
      const dev = c.cases.filter((k) => k.half === 'dev');
      const share = dev.filter((k) => passes(matcher, c.kind, k)).length / dev.length;
      expect({ class: c.id, share: share >= floor }).toEqual({ class: c.id, share: true });
    }
  });
});
