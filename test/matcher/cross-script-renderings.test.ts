/**
 * Listed Latin-script people written in another script or respelt the Baltic way, screened by
 * name only on the shipped lists (issue 37, item 3; eval section (j), dev half): the level a user
 * sees on the person's own listing.
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

/** The level the screen gives one listed person (CLEAR when it is not reported). */
function levelOn(listId: string, entityId: string, name: string): RiskLevel {
  const r = matcher.screen({ name }, CHECK_TYPES);
  const all: Match[] = [
    ...(r.sanctions_result?.matches ?? []),
    ...(r.pep_result?.matches ?? []),
    ...(r.criminal_result?.interpol_hits ?? []),
    ...(r.criminal_result?.fbi_hits ?? []),
  ];
  const match = all.find((x) => x.listings.some((l) => l.list_id === listId && l.entity_id === entityId));
  return match?.risk_level ?? 'CLEAR';
}

const atLeastMedium = (level: RiskLevel) => riskRank(level) >= riskRank('MEDIUM');

describe('a letter of another script that renders two Latin ones', () => {
  it('Cyrillic х for h: "Анди Харрис" is Andy Harris, "Рафик Шихадах" SHIHADAH, Rafiq', () => {
    expect(atLeastMedium(levelOn('us_congress_pep', 'H001052', 'Анди Харрис'))).toBe(true);
    expect(atLeastMedium(levelOn('ofac_sdn', '20946', 'Рафик Шихадах'))).toBe(true);
    expect(atLeastMedium(levelOn('ofac_sdn', '39440', 'Хоссейн Рахими'))).toBe(true);
  });

  it('Greek χ for kh, μπ for mp and ντ for nt: Zakharov, Thompson, Stanton', () => {
    expect(atLeastMedium(levelOn('ofac_sdn', '35025', 'Ανντρει Γκεοργκιγιεβιτς Ζαχαροβ'))).toBe(true);
    expect(atLeastMedium(levelOn('us_congress_pep', 'T000467', 'Γκλεν Θομπσον'))).toBe(true);
    expect(atLeastMedium(levelOn('us_congress_pep', 'S001211', 'Γκρεγκ Σταντον'))).toBe(true);
  });

  it('Greek γι before a vowel is y: "Γιουρι" is Yury, "Ργιαν" Ryan, "Γιακουσεβ" YAKUSHEV', () => {
    expect(atLeastMedium(levelOn('au_dfat', '6979', 'Γιουρι Βικτοροβιτς Φεντοροβ'))).toBe(true);
    expect(atLeastMedium(levelOn('us_congress_pep', 'M001230', 'Ργιαν Μακενζι'))).toBe(true);
    expect(atLeastMedium(levelOn('au_dfat', '6284', 'Βλαντιμιρ Βλαντιμιροβιτς Γιακουσεβ'))).toBe(true);
  });

  it('Macedonian and Serbian ј for y: "Јахја Синуар" is Yahya Sinwar, "Јурии" Yuriy', () => {
    expect(atLeastMedium(levelOn('ca_sema', 'Hamas Terrorist Attacks/Part 1/1', 'Јахја Синуар'))).toBe(true);
    expect(atLeastMedium(levelOn('ca_sema', 'Ukraine/Part 1/86', 'Јурии Сивоконенко'))).toBe(true);
  });

  it('Georgian ფ for f: "რანდი ფინსთრა" is Randy Feenstra', () => {
    expect(atLeastMedium(levelOn('us_congress_pep', 'F000446', 'რანდი ფინსთრა'))).toBe(true);
  });
});

describe('Hebrew, Arabic and Persian', () => {
  it('an opening alef stands for any vowel: "דארל אסא" is Darrell Issa', () => {
    expect(atLeastMedium(levelOn('us_congress_pep', 'I000056', 'דארל אסא'))).toBe(true);
    expect(atLeastMedium(levelOn('us_congress_pep', 'I000056', 'داريل اسا'))).toBe(true);
  });

  it('the vowel after the first letter is left unwritten: "ג\'רי מוראן" is Jerry Moran', () => {
    expect(atLeastMedium(levelOn('us_congress_pep', 'M000934', "ג'רי מוראן"))).toBe(true);
    // ... but the first letter is as written: Arabic ك (k) is not خ (kh); a c before e is s.
    expect(atLeastMedium(levelOn('ofac_sdn', '20243', 'عطية الكراي'))).toBe(false);
    expect(atLeastMedium(levelOn('ofac_sdn', '7669', 'رانكو سيسيك'))).toBe(true);
  });

  it('a letter written twice across a vowel counts twice: "داویدوویک" is DAVIDOVIC', () => {
    expect(atLeastMedium(levelOn('ofac_sdn', '45389', 'میودراگ داویدوویک'))).toBe(true);
  });
});

describe('Persian', () => {
  it('ال opens a Persian word of its own, not the article: "الیکساندروویچ" is Alexandrovich', () => {
    expect(atLeastMedium(levelOn('eu_fsf', 'EU.7722.1', 'سیرگیی الیکساندروویچ مارتینوو'))).toBe(true);
  });
});

describe('a name of one consonant', () => {
  it('folded alike in two letters is one name: "Джое Негус" is Joe Neguse, "Džoe Vilsons" Joe Wilson', () => {
    expect(atLeastMedium(levelOn('us_congress_pep', 'N000191', 'Джое Негус'))).toBe(true);
    expect(atLeastMedium(levelOn('us_congress_pep', 'W000795', 'Džoe Vilsons'))).toBe(true);
  });
});

describe('the Arabic article', () => {
  it('a foreign name opening with al, el or il is written as with the article: "اليكسيفيتش" is Alekseevich, "الفورد" Alford', () => {
    expect(atLeastMedium(levelOn('ofac_sdn', '35257', 'سيرغي اليكسيفيتش بوبكوف'))).toBe(true);
    expect(atLeastMedium(levelOn('us_congress_pep', 'A000379', 'مارك الفورد'))).toBe(true);
    expect(atLeastMedium(levelOn('eu_fsf', 'EU.11437.55', 'الينا افغينييفنا موروزوفا'))).toBe(true);
  });
});

describe('Baltic respellings', () => {
  it('an s that is the name\'s own, not the ending: "Saima Sirenius Sefus" is CEPHUS, Sayma Syrenius', () => {
    expect(atLeastMedium(levelOn('ofac_sdn', '38517', 'Saima Sirenius Sefus'))).toBe(true);
    expect(atLeastMedium(levelOn('us_congress_pep', 'D000629', 'Šarais Davids'))).toBe(true);
  });

  it('a short name respelt is still found: "Brians Džaks" is Brian Jack, "Maiks Džonsons" Mike Johnson', () => {
    expect(atLeastMedium(levelOn('us_congress_pep', 'J000311', 'Brians Džaks'))).toBe(true);
    expect(atLeastMedium(levelOn('us_congress_pep', 'J000299', 'Maiks Džonsons'))).toBe(true);
  });

  it('a stem is looked up within one edit: "Huseinas Mahlufas" is Hussein Makhluf, "Golubovičas" GOLUBOVICH', () => {
    expect(atLeastMedium(levelOn('eu_fsf', 'EU.3822.40', 'Huseinas Mahlufas'))).toBe(true);
    expect(atLeastMedium(levelOn('uk_fcdo', 'RUS1272', 'Mihailas Vasiljevičas Golubovičas'))).toBe(true);
  });

  it('a foreign w is written v: "Vesli Bels" is Wesley Bell', () => {
    expect(atLeastMedium(levelOn('us_congress_pep', 'B001324', 'Vesli Bels'))).toBe(true);
  });

  it('a Latvian respelling without Baltic letters is read by its endings: "Adrians Smits" is Adrian Smith', () => {
    expect(atLeastMedium(levelOn('us_congress_pep', 'S001172', 'Adrians Smits'))).toBe(true);
    expect(atLeastMedium(levelOn('us_congress_pep', 'I000056', 'Darels Isa'))).toBe(true);
  });

  it('a respelling writes every vowel it hears: "Martins" is not MARTINA or MURADIAN, "Jenna" not Gwen', () => {
    expect(atLeastMedium(levelOn('world_leaders_pep', 'Croatia|Martina DALIC', 'Dalila Martins'))).toBe(
      false,
    );
    expect(atLeastMedium(levelOn('interpol_red', '2016/77658', 'Pietro Martins'))).toBe(false);
    expect(atLeastMedium(levelOn('us_congress_pep', 'M001160', 'Jenna Moors'))).toBe(false);
  });
});
