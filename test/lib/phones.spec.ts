/** Phone numbers read against a region (src/lib/phones.ts): what is accepted, and one key however a number is written. */
import fc from 'fast-check';
import { type CountryCode, getExampleNumber, parsePhoneNumberFromString } from 'libphonenumber-js';
import examples from 'libphonenumber-js/examples.mobile.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import { isLandlineNumber, isMobileNumber, phoneKey, regionOf } from '../../src/lib/phones.ts';

const REGIONS = ['GB', 'US', 'CN', 'DE', 'IN', 'BR', 'JP'] as const;

describe('phone numbers', () => {
  it('accepts formatted numbers of the region and international ones, and keys them alike', () => {
    const cases: [string, string, string][] = [
      ['+44 7911 123456', 'CN', '+447911123456'],
      ['07911 123456', 'GB', '+447911123456'],
      ['(650) 253-0000', 'US', '+16502530000'],
      ['650.253.0000', 'US', '+16502530000'],
      ['020 7946 0958', 'GB', '+442079460958'],
      ['138 0013 8000', 'CN', '+8613800138000'],
      ['0086 138 0013 8000', 'CN', '+8613800138000'],
      ['0151 23456789', 'DE', '+4915123456789'],
      ['98765 43210', 'IN', '+919876543210'],
      ['(11) 91234-5678', 'BR', '+5511912345678'],
      ['090-1234-5678', 'JP', '+819012345678'],
    ];
    for (const [text, region, key] of cases) {
      expect(isMobileNumber(text, region), `${text} in ${region}`).toBe(true);
      expect(phoneKey(text, region)).toBe(key);
    }
  });

  it('refuses what is no number of the region, and an extension on a mobile number; a landline may have one', () => {
    const refused: [string, string][] = [
      ['12', 'CN'],
      ['12345', 'CN'],
      ['call 13800138000', 'CN'],
      ['13800138000', 'GB'],
      ['not a phone', 'US'],
      ['650-253-0000 x12', 'US'],
    ];
    for (const [text, region] of refused) expect(isMobileNumber(text, region), `${text} in ${region}`).toBe(false);
    expect(isLandlineNumber('650-253-0000 x12', 'US')).toBe(true);
    expect(isLandlineNumber('0571-1234567', 'CN')).toBe(true);
    expect(isLandlineNumber('020 7946 0958 ext. 4', 'GB')).toBe(true);
  });

  it('keys text it cannot read by its digits, and no digit as nothing', () => {
    expect(phoneKey('abc', 'CN')).toBeNull();
    expect(phoneKey('+(1)', 'US')).toBe('+1');
  });

  it('takes a region as ISO 3166-1 alpha-2 in any case, and nothing else', () => {
    expect(regionOf('gb')).toBe('GB');
    expect(regionOf(' CN ')).toBe('CN');
    for (const bad of ['', 'XX', 'GBR', 'U', '12', 'uk']) expect(regionOf(bad)).toBeNull();
  });

  it('property: a mobile number of each region has one key in national, international and E.164 form, spaced or not', () => {
    const numberOf = fc
      .record({ region: fc.constantFrom(...REGIONS), tail: fc.integer({ min: 0, max: 99 }), sep: fc.constantFrom(' ', '-', '', '.') })
      .map(({ region, tail, sep }) => {
        const example = getExampleNumber(region as CountryCode, examples);
        if (!example) throw new Error(`no example for ${region}`);
        // The example with its last two digits changed: another number of the same range.
        const national = `${example.nationalNumber.slice(0, -2)}${String(tail).padStart(2, '0')}`;
        return { region, sep, n: parsePhoneNumberFromString(national, region as CountryCode) };
      })
      .filter(({ n }) => n !== undefined && n.isPossible());
    fc.assert(
      fc.property(numberOf, ({ region, sep, n }) => {
        if (!n) return;
        const forms = [n.formatNational(), n.formatInternational(), n.number, n.formatInternational().replace(/ /g, sep)];
        for (const form of forms) {
          expect(isMobileNumber(form, region), `${form} in ${region}`).toBe(true);
          expect(phoneKey(form, region)).toBe(n.number);
          // International forms mean the same in any project.
          if (form.startsWith('+')) expect(phoneKey(form, 'CN')).toBe(n.number);
        }
      }),
      { numRuns: 300 },
    );
  });
});
