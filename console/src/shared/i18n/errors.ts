// The SDK carries the server's error table (both languages): the console shows its text for a code.
import { ApiError, errorCodeSpec } from '@rapport/sdk';
import { i18n } from './i18n.ts';

/** The text for a failure, in the user's language: the server's table by code, else a generic one. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    const spec = errorCodeSpec(error.code);
    if (spec) return i18n.language === 'zh-CN' ? spec.zh : spec.en;
    return error.detail || error.code;
  }
  return i18n.t('common.errors.network');
}

/** The server's own detail of a failure (English; which parameter, which limit), when it says more than the code's text. */
export function errorDetail(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const spec = errorCodeSpec(error.code);
  return error.detail && error.detail !== spec?.en ? error.detail : undefined;
}

/** The server's code of a failure, for a page that answers one code in its own words. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof ApiError ? error.code : undefined;
}
