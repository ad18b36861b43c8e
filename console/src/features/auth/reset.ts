/**
 * The forgotten-password page's rules that are not the server's: when a new code may be asked for
 * (the server keeps a minute between two codes for one account) and what a typed code is.
 */

/** Seconds the server keeps between two codes for one mobile number or e-mail. */
export const RESEND_SECONDS = 60;

/** Whole seconds until another code may be asked for, from when the last was sent (ms); 0 when it may. */
export function secondsToResend(sentAt: number | null, now: number): number {
  if (sentAt === null) return 0;
  return Math.max(0, Math.ceil((sentAt + RESEND_SECONDS * 1000 - now) / 1000));
}

/** A code as typed or pasted ("123 456", "123-456", with full-width digits): its digits only. */
export function codeOf(typed: string): string {
  return typed.replace(/[０-９]/g, (d) => String(d.charCodeAt(0) - 0xff10)).replace(/[\s-]/g, '');
}

/** Whether a typed code has the shape of one: six digits. */
export function isCodeShaped(typed: string): boolean {
  return /^\d{6}$/.test(codeOf(typed));
}
