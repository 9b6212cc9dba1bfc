/**
 * Namesakes the matcher must not alert on, by name only, on the shipped lists (issue 22, item 1):
 * the false alerts found among invented Vietnamese, Russian and Portuguese names (eval section
 * (f), dev half), each beside the listed person's own name, which must still alert.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { type Match, type RiskLevel, riskRank } from '../../lib/matcher/types.ts';
import { CHECK_TYPES } from '../../lib/watchlists/types.ts';

let matcher: Matcher;
beforeAll(() => {
  matcher = createMatcher(loadSnapshot());
}, 120_000);

/** The screen's match on one listed person, if it reports them. */
function matchOn(listId: string, entityId: string, name: string, dob?: string): Match | undefined {
  const r = matcher.screen({ name, dob }, CHECK_TYPES);
  const all: Match[] = [
    ...(r.sanctions_result?.matches ?? []),
    ...(r.pep_result?.matches ?? []),
    ...(r.criminal_result?.interpol_hits ?? []),
    ...(r.criminal_result?.fbi_hits ?? []),
  ];
  return all.find((x) => x.listings.some((l) => l.list_id === listId && l.entity_id === entityId));
}

/** The level the screen gives one listed person (CLEAR when it is not reported). */
function levelOn(listId: string, entityId: string, name: string, dob?: string): RiskLevel {
  return matchOn(listId, entityId, name, dob)?.risk_level ?? 'CLEAR';
}

const below = (level: RiskLevel, ceiling: RiskLevel) => riskRank(level) < riskRank(ceiling);
const atLeast = (level: RiskLevel, floor: RiskLevel) => riskRank(level) >= riskRank(floor);

describe('Vietnamese names written with their marks', () => {
  it('a syllable one letter apart is another name: "Vũ Anh Hoàng" is not OANH VU HOANG', () => {
    expect(levelOn('interpol_red', '2018/52143', 'Vũ Anh Hoàng')).toBe('CLEAR');
    // Her own name: Hoàng (5% of Vietnam) and Vũ (4%): 4 in a million, so MEDIUM by name alone.
    expect(levelOn('interpol_red', '2018/52143', 'Oanh Vũ Hoàng')).toBe('MEDIUM');
    expect(levelOn('interpol_red', '2018/52143', 'Oanh Vũ Hoàng', '1957-01-13')).toBe('HIGH');
  });

  it('"Lê" and "Văn" are names, not particles: "Minh Hùng Vũ" is not Le Minh HUNG', () => {
    expect(below(levelOn('world_leaders_pep', 'Vietnam|Le Minh HUNG', 'Minh Hùng Vũ'), 'MEDIUM')).toBe(true);
    expect(levelOn('world_leaders_pep', 'Vietnam|Le Minh HUNG', 'Lê Minh Hưng')).toBe('HIGH');
  });

  it('a syllable the listed name lacks is another person: "Tuấn Hoàng Hồ" is not the alias "Tuan Hoang"', () => {
    const lu = 'fbi-b52d4922051c3317'; // TRUNG DUC LU
    expect(below(levelOn('fbi_wanted', lu, 'Tuấn Hoàng Hồ'), 'MEDIUM')).toBe(true);
    expect(atLeast(levelOn('fbi_wanted', lu, 'Tuấn Hoàng'), 'MEDIUM')).toBe(true);
    // Văn (a man's middle name) is often left out by the lists.
    expect(atLeast(levelOn('world_leaders_pep', 'Vietnam|Le Minh HUNG', 'Lê Văn Minh Hưng'), 'MEDIUM')).toBe(
      true,
    );
  });

  it('a name without marks is read as any Latin name', () => {
    // Issue 37: LAM is borne by about 8% of Taiwan, so the exact name is held at MEDIUM by name
    // alone, written with its marks or without them.
    expect(levelOn('world_leaders_pep', 'Vietnam|To LAM', 'To Lam')).toBe('MEDIUM');
    expect(levelOn('world_leaders_pep', 'Vietnam|To LAM', 'Tô Lâm')).toBe('MEDIUM');
  });

  it('Romanian ă and Croatian đ are not read as Vietnamese', () => {
    expect(atLeast(levelOn('intl_bodies_pep', 'Q271966', 'Adrian Năsuase', '1950-06-22'), 'MEDIUM')).toBe(
      true,
    );
  });
});

describe('Russian names', () => {
  it("a woman's form of a surname and a given name is not the man's: Valeriya Ivanova / Valery IVANOV", () => {
    const ivanov = 'Belarus/1, Part 1.1/13';
    expect(levelOn('ca_sema', ivanov, 'Valeriya Ivanova')).toBe('CLEAR');
    // Issue 37: a common given name and a common surname inside a longer listed name are weak by
    // name alone; the listed name in full is still an alert.
    expect(atLeast(levelOn('ca_sema', ivanov, 'Valery Nikolaevich Ivanov'), 'MEDIUM')).toBe(true);
  });

  it('a surname is not the patronymic made from the same name: Veniamin Ivanov / Veniamin Ivanovich KONDRATYEV', () => {
    expect(below(levelOn('eu_fsf', 'EU.10336.59', 'Veniamin Ivanov'), 'MEDIUM')).toBe(true);
    expect(atLeast(levelOn('eu_fsf', 'EU.10336.59', 'Veniamin Kondratyev'), 'MEDIUM')).toBe(true);
  });
});

describe('near spellings of common names', () => {
  const trevino = '11528';

  it('a common given name and a near surname, with listed parts left over, is no alert by name only', () => {
    expect(below(levelOn('ofac_sdn', trevino, 'Miguel Moraes'), 'MEDIUM')).toBe(true);
    expect(
      below(levelOn('world_leaders_pep', 'Cuba|Roberto MORALES Ojeda', 'Roberto Moraes'), 'MEDIUM'),
    ).toBe(true);
  });

  it('so is an uncommon given name beside a near surname: Teresa Costa / Teresa MARTINEZ Acosta', () => {
    const teresa = 'Paraguay|Teresa MARTINEZ Acosta';
    expect(below(levelOn('world_leaders_pep', teresa, 'Teresa Costa'), 'MEDIUM')).toBe(true);
    // Her own name alerts; borne by about 4 in a million (Martinez 4%, Acosta 2% in Paraguay), as
    // a possible match.
    expect(levelOn('world_leaders_pep', teresa, 'Teresa Martinez Acosta')).toBe('MEDIUM');
  });

  it('is an alert with the listed date of birth, and a typo in the full name still is', () => {
    expect(atLeast(levelOn('ofac_sdn', trevino, 'Miguel Moraes', '1973-06-28'), 'MEDIUM')).toBe(true);
    expect(atLeast(levelOn('ofac_sdn', trevino, 'Miguel Trevino Moralez'), 'MEDIUM')).toBe(true);
  });
});

describe('two name parts without the date of birth', () => {
  it('a common given name and a surname rare on the lists is MEDIUM, not HIGH: Roman Semenov', () => {
    const r = matcher.screen({ name: 'Роман Семенов' }, ['sanctions']);
    const m = r.sanctions_result?.matches.find((x) => x.primary_name === 'SEMENOV, Roman');
    expect(m?.risk_level).toBe('MEDIUM');
    expect(m?.explanation.name.detail).toContain('two name parts, not both rare, without the date of birth');
    expect(r.sanctions_result?.is_sanctioned).toBe(false);
  });

  it('is CRITICAL with the listed date of birth; a fuller name borne by hundreds is MEDIUM without it, a rare one HIGH', () => {
    const r = matcher.screen({ name: 'Роман Семенов', dob: '1987-11-08' }, ['sanctions']);
    expect(r.sanctions_result?.risk_level).toBe('CRITICAL');
    // Issue 37: Irina (2%), Vasilievna (0.8%) and Popova (0.2%), all a woman's: 1.3 in a million.
    expect(levelOn('eu_fsf', 'EU.7942.54', 'Irina Vasilievna Popova')).toBe('MEDIUM');
    expect(levelOn('eu_fsf', 'EU.7942.54', 'Irina Vasilievna Popova', '1966-08-07')).toBe('CRITICAL');
    expect(levelOn('ofac_sdn', '21171', 'Yevgeniy Viktorovich Prigozhin')).toBe('HIGH');
  });
});

describe('initials', () => {
  it('a given name does not stand in for a middle initial while the given name is unpaired', () => {
    const rana = '2011/62730';
    expect(below(levelOn('interpol_red', rana, 'Akshata Rana'), 'MEDIUM')).toBe(true);
    // Issue 37: Akbar and Rana are both common, so "Akbar Rana" is a lead (LOW) by name alone.
    expect(levelOn('interpol_red', rana, 'Akbar Rana')).toBe('LOW');
    expect(atLeast(levelOn('interpol_red', rana, 'Akbar Ali Rana'), 'MEDIUM')).toBe(true);
  });
});

describe('common names inside longer listed names', () => {
  const melo = 'Angola|Anibal Joao Da Silva MELO';

  it('"João Silva" is not an alert on Anibal Joao Da Silva MELO without the date of birth', () => {
    expect(below(levelOn('world_leaders_pep', melo, 'João Silva'), 'MEDIUM')).toBe(true);
  });

  it("the listed name's two ends, its middle left out, still alert", () => {
    expect(atLeast(levelOn('world_leaders_pep', melo, 'Anibal Melo'), 'MEDIUM')).toBe(true);
  });
});

describe('a whole name part taken for a listed initial', () => {
  it('"Maia Haley" is not Haley M. Stevens; "Haley Stevens" is', () => {
    expect(below(levelOn('us_congress_pep', 'S001215', 'Maia Haley'), 'MEDIUM')).toBe(true);
    expect(levelOn('us_congress_pep', 'S001215', 'Haley Stevens')).toBe('HIGH');
  });
});

describe('a weak name and a date of birth matched only within several listed years', () => {
  it('stays LOW: Ibrahim bin Abd al-Salam born 1975 is not the listed 1975–1976 "Abdul Salam"', () => {
    expect(levelOn('un_sc', '3000509', 'ابراهيم بن عبد السلام', '1975-07-18')).toBe('LOW');
    // The explanation says why the matching date did not count.
    expect(matchOn('un_sc', '3000509', 'ابراهيم بن عبد السلام', '1975-07-18')?.explanation.dob).toEqual({
      status: 'matched',
      detail:
        'date of birth matches the listed 1975–1976 (the list gives a range of years); a match on one of several listed years does not lift a weak name',
    });
  });

  it('one listed year still lifts a weak name to MEDIUM: AWLIJAN born 1968 / WALIJAN', () => {
    expect(atLeast(levelOn('un_sc', '110959', 'AWLIJAN', '1968'), 'MEDIUM')).toBe(true);
  });
});

describe('a name part the lists carry, two letters from a listed one', () => {
  it('is another name, not a misspelling: "Pablo Martins" is not Pablo MARIN, "Simon Bykov" not Simeon BOIKOV', () => {
    const marin = 'Belize|Pablo MARIN';
    const boikov = 'EU.13456.67';
    const madeira = 'Q3321239'; // Jamila Madeira
    expect(below(levelOn('world_leaders_pep', marin, 'Pablo Martins'), 'MEDIUM')).toBe(true);
    expect(below(levelOn('eu_fsf', boikov, 'Simon Bykov'), 'MEDIUM')).toBe(true);
    expect(below(levelOn('intl_bodies_pep', madeira, 'Camila Moreira'), 'MEDIUM')).toBe(true);
    expect(atLeast(levelOn('world_leaders_pep', marin, 'Pablo Marin'), 'MEDIUM')).toBe(true);
    expect(atLeast(levelOn('eu_fsf', boikov, 'Simeon Boikov'), 'MEDIUM')).toBe(true);
    expect(atLeast(levelOn('intl_bodies_pep', madeira, 'Camila Madeira'), 'MEDIUM')).toBe(true);
  });

  it('a misspelling two letters off that no list carries still alerts: "Pablo Maryns"', () => {
    // Issue 37: Pablo and Marin are common names, so the misspelling is reported as a lead (LOW)
    // by name alone; the exact name stays at least MEDIUM.
    expect(levelOn('world_leaders_pep', 'Belize|Pablo MARIN', 'Pablo Maryns')).toBe('LOW');
    expect(atLeast(levelOn('world_leaders_pep', 'Belize|Pablo MARIN', 'Pablo Marin'), 'MEDIUM')).toBe(true);
  });
});

describe('Abd names', () => {
  it('a typo on the first letter after "Abdul" is a typo: Abduliafid ZLITNI / ZLITNI, Abdulhafid', () => {
    expect(atLeast(levelOn('ofac_sdn', '12684', 'Abduliafid ZLITNI'), 'MEDIUM')).toBe(true);
  });

  it('"al" run into the name after "Abd" is still the name: Abd alRazzak FITWI / FITWI, Abd al-Razzak', () => {
    expect(atLeast(levelOn('ofac_sdn', '24313', 'Abd alRazzak FITWI'), 'MEDIUM')).toBe(true);
  });
});
