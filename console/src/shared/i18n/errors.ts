// The server's error texts come with the language shown (src/shared/i18n/i18n.ts): the console shows its text for a code.
import { ApiError } from '@rapport/sdk';
import { i18n, languagePack } from './i18n.ts';

/** A code's text in a table: a fixed code's, else a field code's (`<parameter>_<problem>`) by its problem. */
function lookUp(table: { codes: Record<string, string>; fields: Record<string, string> } | undefined, code: string): string | undefined {
  if (!table) return undefined;
  if (Object.hasOwn(table.codes, code)) return table.codes[code];
  const cut = code.lastIndexOf('_');
  const problem = code.slice(cut + 1);
  return cut > 0 && Object.hasOwn(table.fields, problem) ? table.fields[problem] : undefined;
}

/** The text of a failure code in the user's language (the server's table), or undefined for a code it does not have. */
export function codeText(code: string): string | undefined {
  return lookUp(languagePack(i18n.language)?.errors, code);
}

/** The text for a failure, in the user's language: the server's table by code, else a generic one. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return codeText(error.code) ?? (error.detail || error.code);
  return i18n.t('common.errors.network');
}

/** The server's own detail of a failure (English; which parameter, which limit), when it says more than the code's text. */
export function errorDetail(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const errors = languagePack(i18n.language)?.errors;
  return error.detail && error.detail !== lookUp(errors?.english ?? errors, error.code) ? error.detail : undefined;
}

/** The server's code of a failure, for a page that answers one code in its own words. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof ApiError ? error.code : undefined;
}

/** A failure's messages for the form field it names: its text, then the server's detail when that says more. */
export function fieldErrors(error: unknown): string[] {
  const detail = errorDetail(error);
  return detail ? [errorText(error), detail] : [errorText(error)];
}
