import { ApiError } from '@rapport/sdk';
import { describe, expect, it } from 'vitest';
import { fileNameOf, readFile } from './download.ts';

function answer(body: string, init: ResponseInit, error?: unknown) {
  const response = new Response(body, init);
  return { response, data: response.ok ? response.clone().body : null, error };
}

describe('reading a file the API answers', () => {
  it('collects the body, reporting the bytes as they come, with the name the server gives', async () => {
    const seen: number[] = [];
    const file = await readFile(
      answer('\ufeffid,name\r\n1,A\r\n', {
        status: 200,
        headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="customers.csv"' },
      }),
      'fallback.csv',
      (n) => seen.push(n),
    );
    expect(file.fileName).toBe('customers.csv');
    expect(file.blob.type).toBe('text/csv');
    // The bytes as sent, the byte order mark included.
    expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(await file.blob.arrayBuffer())).toBe('\ufeffid,name\r\n1,A\r\n');
    expect(seen.at(-1)).toBe(file.blob.size);
  });

  it('throws the failure of an HTTP error and of the HTTP 200 envelope', async () => {
    const forbidden = { error: 'forbidden', error_description: 'This project does not let Sales members export customers' };
    await expect(readFile(answer(JSON.stringify(forbidden), { status: 403 }, forbidden), 'x')).rejects.toMatchObject({
      code: 'forbidden',
      httpStatus: 403,
    });
    const envelope = JSON.stringify({ status: 0, code: 'import_not_found', msg: 'Import not found' });
    const err = await readFile(answer(envelope, { status: 200, headers: { 'content-type': 'application/json' } }), 'x').catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'import_not_found' });
  });

  it('reads the file name of a Content-Disposition', () => {
    expect(fileNameOf('attachment; filename="problems-1.csv"', 'x')).toBe('problems-1.csv');
    expect(fileNameOf("attachment; filename*=UTF-8''%E5%AE%A2%E6%88%B7.csv", 'x')).toBe('客户.csv');
    expect(fileNameOf(null, 'fallback.xlsx')).toBe('fallback.xlsx');
  });
});
