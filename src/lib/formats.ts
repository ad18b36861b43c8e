/** Input formats shared by accounts and customers. */

/** Mobile number: optional +, then 5 to 20 digits (spaces and dashes are not accepted). */
export const PHONE_RE = /^\+?\d{5,20}$/;

/** Landline: digits with optional +, spaces, dashes, parentheses and an extension; 5 to 30 chars. */
export const FIXED_PHONE_RE = /^\+?[\d\s()-]{5,25}(?:(?:ext\.?|x|#|-)\s?\d{1,6})?$/i;

/** A pragmatic e-mail check (RFC 5321 lengths, one @, a dotted domain). */
const EMAIL_RE =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isEmail(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  return at > 0 && at <= 64 && EMAIL_RE.test(value);
}

export function isPhone(value: string): boolean {
  return PHONE_RE.test(value);
}
