/**
 * The regions a project's phone numbers can be read against (ISO 3166-1 alpha-2: the server's
 * libphonenumber-js knows each; docs/projects.md), named in the user's language by the browser.
 */
export const REGIONS: readonly string[] = (
  'AC AD AE AF AG AI AL AM AO AR AS AT AU AW AX AZ BA BB BD BE ' +
  'BF BG BH BI BJ BL BM BN BO BQ BR BS BT BW BY BZ CA CC CD CF ' +
  'CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO ' +
  'DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG ' +
  'GH GI GL GM GN GP GQ GR GT GU GW GY HK HN HR HT HU ID IE IL ' +
  'IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW ' +
  'KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH ' +
  'MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF ' +
  'NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PR PS PT ' +
  'PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM ' +
  'SN SO SR SS ST SV SX SY SZ TA TC TD TG TH TJ TK TL TM TN TO ' +
  'TR TT TV TW TZ UA UG US UY UZ VA VC VE VG VI VN VU WF WS XK ' +
  'YE YT ZA ZM ZW '
)
  .trim()
  .split(' ');

/** The project's region to propose: the browser's (its language's likely one, e.g. en → US); null when it has none. */
export function browserRegion(languages: readonly string[] = navigator.languages): string | null {
  for (const tag of languages) {
    try {
      const region = new Intl.Locale(tag).maximize().region;
      if (region && REGIONS.includes(region)) return region;
    } catch {
      // not a language tag
    }
  }
  return null;
}

/** A region's name in the language `locale`, e.g. "United Kingdom" / "英国"; the code where the browser has none. */
export function regionName(code: string, locale: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}
