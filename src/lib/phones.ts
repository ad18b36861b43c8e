import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * Phone numbers as sales teams type them, anywhere (docs/customers.md, "Phone numbers"): read with
 * libphonenumber-js against the project's region (ISO 3166-1 alpha-2), which says what a number
 * written without its country code (`020 7946 0958`, `(650) 253-0000`, `138 0013 8000`) means.
 */

/** The region of a project that has none of its own (projects made before regions existed): China, as the original platform. */
export const DEFAULT_REGION = 'CN';

/** A region libphonenumber knows, as the projects' `region` setting takes it: two letters, upper case; null for anything else. */
export function regionOf(text: string): string | null {
  const code = text.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code) ? code : null;
}

function parsed(text: string, region: string) {
  const defaultCountry = isSupportedCountry(region) ? (region as CountryCode) : (DEFAULT_REGION as CountryCode);
  try {
    // The whole text must be the number (with its punctuation): "call 138…" is no number.
    return parsePhoneNumberFromString(text, { defaultCountry, extract: false });
  } catch {
    return undefined;
  }
}

/**
 * A mobile number: a possible number of its country (its length fits; libphonenumber's `isPossible`,
 * not `isValid`, so that a number of a range allocated after this release is not refused), written
 * in national form for the region or in international form (`+44 …`, `0044 …`), without an extension.
 */
export function isMobileNumber(text: string, region: string): boolean {
  const n = parsed(text, region);
  return n !== undefined && n.ext === undefined && n.isPossible();
}

/** A landline: as a mobile number, and it may end with an extension (`ext. 12`, `x12`, `#12`). */
export function isLandlineNumber(text: string, region: string): boolean {
  const n = parsed(text, region);
  return n !== undefined && n.isPossible();
}

/**
 * The key a number is matched by (search, duplicates, whetherMerge, imports, the viewer's form): its
 * international form, E.164 (`+447911123456`), whichever way it was written. Text that libphonenumber
 * cannot read as a number (a value stored before numbers were read this way) keys by its digits, with
 * its leading `+`; null for text without a digit.
 */
export function phoneKey(text: string, region: string): string | null {
  const n = parsed(text, region);
  if (n !== undefined) return n.number;
  const digits = text.replace(/\D/g, '');
  if (digits === '') return null;
  return text.trim().startsWith('+') ? `+${digits}` : digits;
}
