/** Input formats shared by accounts and customers. */

/**
 * A user's mobile number (accounts: sign-in names, profiles): optional +, then 5 to 20 digits.
 * Customers' numbers are read against their project's region instead (src/lib/phones.ts).
 */
export const PHONE_RE = /^\+?\d{5,20}$/;

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
