import { describe, expect, it } from 'vitest';
import { codeOf, isCodeShaped, RESEND_SECONDS, secondsToResend } from './reset.ts';

describe('asking for a new reset code', () => {
  it('may ask at once when no code was sent', () => {
    expect(secondsToResend(null, 1_000_000)).toBe(0);
  });

  it('waits the server’s minute after a code, counting whole seconds up', () => {
    const sent = 1_000_000;
    expect(secondsToResend(sent, sent)).toBe(RESEND_SECONDS);
    expect(secondsToResend(sent, sent + 1)).toBe(RESEND_SECONDS);
    expect(secondsToResend(sent, sent + 59_001)).toBe(1);
    expect(secondsToResend(sent, sent + 60_000)).toBe(0);
    expect(secondsToResend(sent, sent + 3_600_000)).toBe(0);
  });
});

describe('a typed code', () => {
  it('keeps its digits, whether typed with spaces or dashes or in full-width digits', () => {
    expect(codeOf('123456')).toBe('123456');
    expect(codeOf(' 123 456 ')).toBe('123456');
    expect(codeOf('123-456')).toBe('123456');
    expect(codeOf('１２３４５６')).toBe('123456');
  });

  it('has the shape of a code only with six digits', () => {
    expect(isCodeShaped('123 456')).toBe(true);
    expect(isCodeShaped('12345')).toBe(false);
    expect(isCodeShaped('1234567')).toBe(false);
    expect(isCodeShaped('12345a')).toBe(false);
    expect(isCodeShaped('')).toBe(false);
  });
});
