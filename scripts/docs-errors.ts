/**
 * Writes docs/errors.md, the SDK's copy of the table (packages/sdk/src/error-table.ts) and the console's
 * texts of it, one file per language (console/src/locales/<language>/errors.json, loaded with that
 * language's texts), from the error table (src/http/error-codes.ts): `npm run docs:errors`.
 * test/http/error-codes.test.ts fails when a committed file differs from what this renders.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { ERROR_CODES, type ErrorCodeSpec, FIELD_ERROR_CODES } from '../src/http/error-codes.ts';

export const ERRORS_DOC = fileURLToPath(new URL('../docs/errors.md', import.meta.url));
export const SDK_ERROR_TABLE = fileURLToPath(new URL('../packages/sdk/src/error-table.ts', import.meta.url));
/** The console's languages and the text of the table each one shows. */
export const CONSOLE_ERROR_TEXTS = {
  'en-US': { file: fileURLToPath(new URL('../console/src/locales/en-US/errors.json', import.meta.url)), text: 'en' },
  'zh-CN': { file: fileURLToPath(new URL('../console/src/locales/zh-CN/errors.json', import.meta.url)), text: 'zh' },
} as const;

const cell = (text: string) => text.replaceAll('|', '\\|');
const answers = (spec: ErrorCodeSpec) => spec.http.map((a) => `${a.status} ${a.body}`).join(', ');
const row = (code: string, spec: ErrorCodeSpec) => `| \`${code}\` | ${answers(spec)} | ${cell(spec.en)} | ${cell(spec.zh)} |`;

/** docs/errors.md as it should be: the table, rendered and formatted as Prettier formats the docs. */
export async function renderErrorsDoc(): Promise<string> {
  const lines = [
    '# Error codes',
    '',
    '<!-- Generated from src/http/error-codes.ts by `npm run docs:errors`: edit the table, not this file. -->',
    '',
    'Every error code the API answers. Clients match on the code; the texts are for people, in English and',
    'in Chinese (Simplified). The SDK carries the same table (`errorCodeSpec`, `ERROR_CODES`, `FIELD_ERROR_CODES`); the web console has',
    'its texts one file per language, loaded with the language it shows.',
    '',
    'Bodies:',
    '',
    '- `envelope`: `{"status": 0, "code": "…", "msg": "…"}` (`invalid_events` adds `errors: [{index, msg}]`);',
    '- `error`: `{"error": "…", "error_description": "…"}`, the OAuth 2.0 shape; 403 and 429 answers use it',
    '  too (429 with `Retry-After`).',
    '',
    '`msg` (or `error_description`) is the English detail of what failed when the server has one — which',
    "parameter, which customer, which limit — and otherwise the code's English text below. It may change",
    'between versions; the code does not.',
    '',
    '## Codes',
    '',
    '| Code | HTTP | English | 中文 |',
    '| --- | --- | --- | --- |',
    ...Object.entries(ERROR_CODES).map(([code, spec]) => row(code, spec)),
    '',
    '## Field codes',
    '',
    'For parameters known only at run time (a project’s customer attributes, profile fields), the code is the',
    'parameter’s name and a suffix: `phone_invalid`, `company_required`. A fixed code of the same spelling',
    'above takes precedence.',
    '',
    '| Code | HTTP | English | 中文 |',
    '| --- | --- | --- | --- |',
    ...Object.entries(FIELD_ERROR_CODES).map(([problem, spec]) => row(`<field>_${problem}`, spec)),
    '',
  ];
  const options = await prettier.resolveConfig(ERRORS_DOC);
  return prettier.format(lines.join('\n'), { ...options, filepath: ERRORS_DOC });
}

/** The SDK's copy of the table: the codes with their answers and texts, and the look-up by code. */
export async function renderSdkErrorTable(): Promise<string> {
  const source = `/**
 * Every error code the API answers, with its HTTP answers and its English and Chinese texts (docs/errors.md).
 * Generated from the server's src/http/error-codes.ts by \`npm run docs:errors\`: edit that table, not this file.
 */
export interface ErrorCodeSpec {
  readonly http: readonly { readonly status: number; readonly body: 'envelope' | 'error' }[];
  readonly en: string;
  readonly zh: string;
}

export const ERROR_CODES: Readonly<Record<string, ErrorCodeSpec>> = ${JSON.stringify(ERROR_CODES)};

/** The texts of \`<parameter>_<problem>\` codes, by problem. */
export const FIELD_ERROR_CODES: Readonly<Record<string, ErrorCodeSpec>> = ${JSON.stringify(FIELD_ERROR_CODES)};

const FIELD_CODE = /_(${Object.keys(FIELD_ERROR_CODES).join('|')})$/;

/** The table's entry for any code the API answers (a fixed code, else a field code), or undefined. */
export function errorCodeSpec(code: string): ErrorCodeSpec | undefined {
  if (Object.hasOwn(ERROR_CODES, code)) return ERROR_CODES[code];
  const problem = FIELD_CODE.exec(code)?.[1];
  return problem === undefined || code.length === problem.length + 1 ? undefined : FIELD_ERROR_CODES[problem];
}
`;
  const options = await prettier.resolveConfig(SDK_ERROR_TABLE);
  return prettier.format(source, { ...options, filepath: SDK_ERROR_TABLE });
}

/**
 * The console's texts of the table in one language: each code's (`codes`) and each field code's by its
 * problem (`fields`); a language other than English adds the English texts (`english`), which the
 * console compares a failure's English detail with (a detail that only repeats its code's text is not shown).
 */
export async function renderConsoleErrorTexts(language: keyof typeof CONSOLE_ERROR_TEXTS): Promise<string> {
  const { file, text } = CONSOLE_ERROR_TEXTS[language];
  const texts = (lang: 'en' | 'zh') => {
    const of = (table: Readonly<Record<string, ErrorCodeSpec>>) =>
      Object.fromEntries(Object.entries(table).map(([k, spec]) => [k, spec[lang]]));
    return { codes: of(ERROR_CODES), fields: of(FIELD_ERROR_CODES) };
  };
  const body = text === 'en' ? texts('en') : { ...texts(text), english: texts('en') };
  const options = await prettier.resolveConfig(file);
  return prettier.format(JSON.stringify(body), { ...options, filepath: file });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(ERRORS_DOC, await renderErrorsDoc());
  await writeFile(SDK_ERROR_TABLE, await renderSdkErrorTable());
  for (const language of Object.keys(CONSOLE_ERROR_TEXTS) as (keyof typeof CONSOLE_ERROR_TEXTS)[])
    await writeFile(CONSOLE_ERROR_TEXTS[language].file, await renderConsoleErrorTexts(language));
}
