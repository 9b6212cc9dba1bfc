/**
 * Country reference data: ISO 3166-1 alpha-2 codes, the English short names the product shows,
 * and the spellings, official forms and demonyms the lists and customers use for them.
 *
 * Lists disagree on country names ("Russia", "Russian Federation"; "Korea, North", "Democratic
 * People's Republic of Korea"; "Iran (Islamic Republic of)") and customers send nationality as a
 * demonym ("Russian", "Iranian"). Corroborating a nationality only works when both sides are
 * reduced to one canonical name, which is what `normaliseCountry` does.
 */

// Format: CODE|Canonical name|other names (;)|demonyms (;)
// Other names include misspellings found in the shipped lists (OFSI "Belrus", "Repubic of Moldova").
const COUNTRY_TABLE = `
AD|Andorra||Andorran
AE|United Arab Emirates|UAE;U.A.E.;Emirates|Emirati;Emirian
AF|Afghanistan|Islamic Republic of Afghanistan;Islamic Emirate of Afghanistan|Afghan;Afghani
AG|Antigua and Barbuda|Antigua|Antiguan;Barbudan
AI|Anguilla||Anguillan
AL|Albania||Albanian
AM|Armenia||Armenian
AO|Angola||Angolan
AR|Argentina||Argentine;Argentinian;Argentinean
AS|American Samoa||American Samoan
AT|Austria||Austrian
AU|Australia||Australian
AW|Aruba||Aruban
AZ|Azerbaijan||Azerbaijani;Azeri
BA|Bosnia and Herzegovina|Bosnia-Herzegovina;Bosnia|Bosnian;Herzegovinian
BB|Barbados||Barbadian;Bajan
BD|Bangladesh||Bangladeshi
BE|Belgium||Belgian
BF|Burkina Faso||Burkinabe;Burkinabé
BG|Bulgaria||Bulgarian
BH|Bahrain||Bahraini
BI|Burundi||Burundian
BJ|Benin||Beninese
BM|Bermuda||Bermudian;Bermudan
BN|Brunei|Brunei Darussalam|Bruneian
BO|Bolivia|Bolivia (Plurinational State of);Plurinational State of Bolivia|Bolivian
BR|Brazil||Brazilian
BS|Bahamas|The Bahamas;Bahamas, The|Bahamian
BT|Bhutan||Bhutanese
BW|Botswana||Motswana;Batswana;Botswanan
BY|Belarus|Byelorussia;Belrus|Belarusian;Belarussian;Byelorussian
BZ|Belize||Belizean
CA|Canada||Canadian
CD|Democratic Republic of the Congo|Congo, Democratic Republic of the;Congo (Democratic Republic);Democratic Republic of Congo;DR Congo;DRC;Congo-Kinshasa;Zaire|Congolese (DRC)
CF|Central African Republic|CAR|Central African
CG|Republic of the Congo|Congo;Congo, Republic of the;Congo (Republic);Congo-Brazzaville|Congolese
CH|Switzerland||Swiss
CI|Cote d'Ivoire|Côte d'Ivoire;Ivory Coast|Ivorian
CK|Cook Islands||Cook Islander
CL|Chile||Chilean
CM|Cameroon||Cameroonian
CN|China|People's Republic of China;PRC;China, People's Republic of|Chinese
CO|Colombia||Colombian
CR|Costa Rica||Costa Rican
CU|Cuba||Cuban
CV|Cabo Verde|Cape Verde|Cape Verdean;Cabo Verdean
CW|Curacao|Curaçao|Curacaoan
CY|Cyprus||Cypriot
CZ|Czechia|Czech Republic|Czech
DE|Germany|Federal Republic of Germany|German
DJ|Djibouti||Djiboutian
DK|Denmark||Danish;Dane
DM|Dominica||Dominican (Dominica)
DO|Dominican Republic||Dominican
DZ|Algeria||Algerian
EC|Ecuador||Ecuadorian;Ecuadorean
EE|Estonia||Estonian
EG|Egypt||Egyptian
EH|Western Sahara||Sahrawi;Sahraouian
ER|Eritrea||Eritrean
ES|Spain||Spanish;Spaniard
ET|Ethiopia||Ethiopian
FI|Finland||Finnish;Finn
FJ|Fiji||Fijian
FM|Micronesia|Micronesia, Federated States of;Federated States of Micronesia|Micronesian
FR|France||French
GA|Gabon||Gabonese
GB|United Kingdom|UK;U.K.;Great Britain;Britain;United Kingdom of Great Britain and Northern Ireland;England;Scotland;Wales;Northern Ireland|British;English;Scottish;Welsh;Briton
GD|Grenada||Grenadian
GE|Georgia||Georgian
GH|Ghana||Ghanaian
GI|Gibraltar||Gibraltarian
GM|Gambia|The Gambia;Gambia, The|Gambian
GN|Guinea||Guinean
GQ|Equatorial Guinea||Equatoguinean;Equatorial Guinean
GR|Greece||Greek
GT|Guatemala||Guatemalan
GU|Guam||Guamanian
GW|Guinea-Bissau|Guinea Bissau|Bissau-Guinean
GY|Guyana||Guyanese
HK|Hong Kong|Hong Kong SAR;Hong Kong, China|Hongkonger;Hong Konger
HN|Honduras||Honduran
HR|Croatia||Croatian;Croat
HT|Haiti||Haitian
HU|Hungary||Hungarian
ID|Indonesia||Indonesian
IE|Ireland|Republic of Ireland|Irish
IL|Israel||Israeli
IN|India||Indian
IQ|Iraq||Iraqi
IR|Iran|Iran (Islamic Republic of);Islamic Republic of Iran;Iran, Islamic Republic of;Persia|Iranian;Persian
IS|Iceland||Icelandic;Icelander
IT|Italy||Italian
JM|Jamaica||Jamaican
JO|Jordan||Jordanian
JP|Japan||Japanese
KE|Kenya||Kenyan
KG|Kyrgyzstan|Kyrgyz Republic|Kyrgyz;Kyrgyzstani;Kirghiz
KH|Cambodia||Cambodian;Khmer
KI|Kiribati||I-Kiribati
KM|Comoros||Comoran;Comorian
KN|Saint Kitts and Nevis|St. Kitts and Nevis;St Kitts and Nevis|Kittitian;Nevisian
KP|North Korea|Korea, North;Democratic People's Republic of Korea;Korea, Democratic People's Republic of;DPRK;Korea (North)|North Korean
KR|South Korea|Korea, South;Republic of Korea;Korea, Republic of;Korea;Korea (South)|South Korean;Korean
KW|Kuwait||Kuwaiti
KY|Cayman Islands||Caymanian
KZ|Kazakhstan||Kazakh;Kazakhstani
LA|Laos|Lao People's Democratic Republic;Lao PDR|Laotian;Lao
LB|Lebanon||Lebanese
LC|Saint Lucia|St. Lucia;St Lucia|Saint Lucian
LI|Liechtenstein||Liechtensteiner
LK|Sri Lanka||Sri Lankan
LR|Liberia||Liberian
LS|Lesotho||Basotho;Mosotho
LT|Lithuania||Lithuanian
LU|Luxembourg||Luxembourgish;Luxembourger
LV|Latvia||Latvian
LY|Libya|Libyan Arab Jamahiriya|Libyan
MA|Morocco||Moroccan
MC|Monaco||Monegasque;Monacan
MD|Moldova|Republic of Moldova;Moldova, Republic of;Repubic of Moldova|Moldovan
ME|Montenegro||Montenegrin
MG|Madagascar||Malagasy
MH|Marshall Islands||Marshallese
MK|North Macedonia|Macedonia;Macedonia, The Former Yugoslav Republic of;The former Yugoslav Republic of Macedonia;Republic of North Macedonia|Macedonian;North Macedonian
ML|Mali||Malian
MM|Myanmar|Burma|Burmese;Myanmarese
MN|Mongolia||Mongolian
MO|Macau|Macao|Macanese
MR|Mauritania||Mauritanian
MT|Malta||Maltese
MU|Mauritius||Mauritian
MV|Maldives||Maldivian
MW|Malawi||Malawian
MX|Mexico||Mexican
MY|Malaysia||Malaysian
MZ|Mozambique||Mozambican
NA|Namibia||Namibian
NE|Niger||Nigerien
NG|Nigeria||Nigerian
NI|Nicaragua||Nicaraguan
NL|Netherlands|The Netherlands;Holland|Dutch;Netherlander
NO|Norway||Norwegian
NP|Nepal||Nepalese;Nepali
NR|Nauru||Nauruan
NZ|New Zealand||New Zealander;Kiwi
OM|Oman||Omani
PA|Panama||Panamanian
PE|Peru||Peruvian
PG|Papua New Guinea||Papua New Guinean
PH|Philippines|The Philippines|Filipino;Filipina;Philippine
PK|Pakistan||Pakistani
PL|Poland||Polish;Pole
PR|Puerto Rico||Puerto Rican
PS|Palestine|State of Palestine;Palestinian Territories;Occupied Palestinian Territory;West Bank;Gaza;Gaza Strip;West Bank and Gaza|Palestinian
PT|Portugal||Portuguese
PW|Palau||Palauan
PY|Paraguay||Paraguayan
QA|Qatar||Qatari
RO|Romania||Romanian
RS|Serbia|Republic of Serbia|Serbian;Serb
RU|Russia|Russian Federation;USSR;Soviet Union;former Soviet Union;former USSR|Russian;Soviet
RW|Rwanda||Rwandan;Rwandese
SA|Saudi Arabia|Kingdom of Saudi Arabia;KSA|Saudi;Saudi Arabian
SB|Solomon Islands||Solomon Islander
SC|Seychelles||Seychellois
SD|Sudan|Republic of the Sudan;The Sudan|Sudanese
SE|Sweden||Swedish;Swede
SG|Singapore||Singaporean
SI|Slovenia||Slovenian;Slovene
SK|Slovakia|Slovak Republic|Slovak;Slovakian
SL|Sierra Leone||Sierra Leonean
SM|San Marino||Sammarinese
SN|Senegal||Senegalese
SO|Somalia||Somali;Somalian
SR|Suriname|Surinam|Surinamese
SS|South Sudan||South Sudanese
ST|Sao Tome and Principe|São Tomé and Príncipe|Santomean
SV|El Salvador|Salvador|Salvadoran;Salvadorean;Salvadorian
SY|Syria|Syrian Arab Republic|Syrian
SZ|Eswatini|Swaziland|Swazi;Swati
TC|Turks and Caicos Islands||Turks and Caicos Islander
TD|Chad||Chadian
TG|Togo||Togolese
TH|Thailand||Thai
TJ|Tajikistan||Tajik;Tajikistani
TL|Timor-Leste|East Timor|Timorese
TM|Turkmenistan||Turkmen
TN|Tunisia||Tunisian
TO|Tonga||Tongan
TR|Turkey|Türkiye;Turkiye;Republic of Turkey|Turkish;Turk
TT|Trinidad and Tobago|Trinidad|Trinidadian;Tobagonian
TV|Tuvalu||Tuvaluan
TW|Taiwan|Taiwan, Province of China;Republic of China;Chinese Taipei|Taiwanese
TZ|Tanzania|United Republic of Tanzania;Tanzania, United Republic of|Tanzanian
UA|Ukraine||Ukrainian
UG|Uganda||Ugandan
US|United States|USA;U.S.A.;U.S.;United States of America;America;US|American;US citizen;U.S. citizen
UY|Uruguay||Uruguayan
UZ|Uzbekistan||Uzbek;Uzbekistani
VA|Holy See|Vatican;Vatican City|Vatican
VC|Saint Vincent and the Grenadines|St. Vincent and the Grenadines;St Vincent and the Grenadines|Vincentian
VE|Venezuela|Venezuela (Bolivarian Republic of);Bolivarian Republic of Venezuela|Venezuelan
VG|British Virgin Islands|Virgin Islands, British|British Virgin Islander
VI|U.S. Virgin Islands|Virgin Islands, U.S.;United States Virgin Islands|Virgin Islander
VN|Vietnam|Viet Nam|Vietnamese
VU|Vanuatu||Ni-Vanuatu
WS|Samoa||Samoan
XK|Kosovo||Kosovar;Kosovan
YE|Yemen||Yemeni;Yemenite
ZA|South Africa||South African
ZM|Zambia||Zambian
ZW|Zimbabwe||Zimbabwean
`;

interface CountryRow {
  code: string;
  name: string;
}

const COUNTRIES: CountryRow[] = [];
const BY_CODE = new Map<string, string>();
const BY_KEY = new Map<string, string>();

/** Folds case, diacritics and punctuation so that "Côte d'Ivoire" and "COTE D IVOIRE" meet. */
function countryKey(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

for (const line of COUNTRY_TABLE.split('\n')) {
  if (!line.trim()) continue;
  const [code, name, others, demonyms] = line.split('|');
  COUNTRIES.push({ code, name });
  BY_CODE.set(code, name);
  for (const variant of [name, ...others.split(';'), ...demonyms.split(';')]) {
    const key = countryKey(variant);
    // First writer wins so that a demonym shared by two countries ("Congolese") keeps its table order.
    if (key && !BY_KEY.has(key)) BY_KEY.set(key, name);
  }
}

/** English short name for an ISO 3166-1 alpha-2 code (`"RU"` → `"Russia"`), or undefined if unknown. */
export function countryNameForCode(code: string): string | undefined {
  return BY_CODE.get(code.trim().toUpperCase());
}

/** Every canonical country the table knows, with its ISO 3166-1 alpha-2 code. */
export function listCountries(): readonly CountryRow[] {
  return COUNTRIES;
}

/**
 * Reduces free text naming a country, in any of the forms the lists or customers use (a short
 * name, an official name, "Korea, North", a demonym such as "Iranian", "UK", an ISO alpha-2 code
 * in capitals, a name with a note such as "Iraq (previous address)"), to the canonical English
 * short name of `countryNameForCode`. Returns undefined when the text names no known country.
 */
export function normaliseCountry(text: string | undefined | null): string | undefined {
  if (!text) return undefined;
  // OFAC writes some territories as "Region: Gaza".
  const trimmed = text.trim().replace(/^region:\s*/i, '');
  if (!trimmed) return undefined;
  // Two capital letters are treated as a code only when written as one ("IN", "GB"), never "in".
  if (/^[A-Z]{2}$/.test(trimmed)) {
    const byCode = BY_CODE.get(trimmed);
    if (byCode) return byCode;
  }
  const direct = BY_KEY.get(countryKey(trimmed));
  if (direct) return direct;
  // "Iraq (previous address)", "Russian Federation (as at November 2010)", "Azerbaijan (former USSR)".
  const withoutNote = trimmed.replace(/\s*\([^)]*\)\s*/g, ' ').trim();
  if (withoutNote && withoutNote !== trimmed) {
    const found = BY_KEY.get(countryKey(withoutNote));
    if (found) return found;
  }
  // "Korea, North" style inversions not listed explicitly.
  const comma = withoutNote.match(/^([^,]+),\s*(?:the\s+)?([^,]+)$/i);
  if (comma) {
    const found = BY_KEY.get(countryKey(`${comma[2]} ${comma[1]}`));
    if (found) return found;
  }
  const withoutArticle = withoutNote.replace(/^(the|possibly|probably)\s+/i, '');
  if (withoutArticle !== withoutNote) return normaliseCountry(withoutArticle);
  return undefined;
}

/**
 * Splits a field that may name several countries ("(1) Russia (2) Ukraine", "Palestinian and
 * possibly Lebanese", "Russian/Israeli") and normalises each part; parts that name no known
 * country are dropped.
 */
export function normaliseCountries(text: string | undefined | null): string[] {
  if (!text) return [];
  const out = new Set<string>();
  for (const numbered of text.split(/\(\d+\)/)) {
    const part = numbered.replace(/^[\s.,;]+|[\s.,;]+$/g, '');
    if (!part) continue;
    const whole = normaliseCountry(part);
    if (whole) {
      out.add(whole);
      continue;
    }
    for (const piece of part.split(/\s*\/\s*|;|,|\band\b|\bor\b/)) {
      const found = normaliseCountry(piece);
      if (found) out.add(found);
    }
  }
  return [...out];
}
