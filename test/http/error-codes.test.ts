// lanes: sqlite
import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CONSOLE_ERROR_TEXTS,
  ERRORS_DOC,
  SDK_ERROR_TABLE,
  renderConsoleErrorTexts,
  renderErrorsDoc,
  renderSdkErrorTable,
} from '../../scripts/docs-errors.ts';
import { ERROR_CODES, FIELD_ERROR_CODES, errorCodeSpec } from '../../src/http/error-codes.ts';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

async function sources(): Promise<string> {
  const files = (await readdir(SRC, { recursive: true })).filter((f) => f.endsWith('.ts') && !f.endsWith('error-codes.ts'));
  return (await Promise.all(files.map((f) => readFile(`${SRC}/${f}`, 'utf8')))).join('\n');
}

describe('error table', () => {
  it('docs/errors.md is what `npm run docs:errors` generates from it', async () => {
    expect(await readFile(ERRORS_DOC, 'utf8')).toBe(await renderErrorsDoc());
  });

  it("the SDK's copy of the table (packages/sdk/src/error-table.ts) is what `npm run docs:errors` generates", async () => {
    expect(await readFile(SDK_ERROR_TABLE, 'utf8')).toBe(await renderSdkErrorTable());
  });

  it("the console's texts of the table (console/src/locales/<language>/errors.json) are what `npm run docs:errors` generates", async () => {
    for (const language of ['en-US', 'zh-CN'] as const) {
      expect(await readFile(CONSOLE_ERROR_TEXTS[language].file, 'utf8'), language).toBe(await renderConsoleErrorTexts(language));
    }
  });

  it('has an English and a Chinese text for every code', () => {
    for (const spec of [...Object.values(ERROR_CODES), ...Object.values(FIELD_ERROR_CODES)]) {
      expect(spec.en).not.toBe('');
      expect(spec.zh).toMatch(/[\u4e00-\u9fff]/);
      expect(spec.http.length).toBeGreaterThan(0);
    }
  });

  it('lists no code the server never answers', async () => {
    const text = await sources();
    const unused = Object.keys(ERROR_CODES).filter((code) => !text.includes(`'${code}'`));
    expect(unused).toEqual([]);
  });

  it('looks up fixed codes first, then field codes', () => {
    expect(errorCodeSpec('app_not_found')).toBe(ERROR_CODES.app_not_found);
    expect(errorCodeSpec('email_invalid')).toBe(ERROR_CODES.email_invalid);
    expect(errorCodeSpec('phone_invalid')).toBe(FIELD_ERROR_CODES.invalid);
    expect(errorCodeSpec('company_required')).toBe(FIELD_ERROR_CODES.required);
    expect(errorCodeSpec('_unique')).toBeUndefined();
    expect(errorCodeSpec('no_such_code')).toBeUndefined();
  });
});
