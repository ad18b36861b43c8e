import { describe, expect, it } from 'vitest';
import {
  PREVIEW_BYTES,
  anyMapped,
  assign,
  byteSize,
  initialMapping,
  mappingField,
  percentDone,
  previewPart,
  noticedImport,
  runningImport,
  unmappedRequired,
} from './model.ts';

const fields = [
  { name: 'name', title: '姓名', required: true },
  { name: 'phone', title: '手机', required: false },
  { name: 'email', title: '邮箱', required: false },
  { name: 'ext_level', title: 'Level', required: false },
];

describe('the mapping of columns to fields', () => {
  it("starts from the server's suggestion, leaving out fields the console does not offer and a second column for one field", () => {
    const preview = [
      { column: 'Name', attribute: 'name' },
      { column: 'Mobile', attribute: 'phone' },
      { column: 'Created', attribute: 'createWay' },
      { column: 'Notes', attribute: '' },
      { column: 'Phone again', attribute: 'phone' },
      { column: 'Level', attribute: 'ext_level' },
    ];
    expect(initialMapping(preview, fields)).toEqual(['name', 'phone', '', '', '', 'ext_level']);
  });

  it('gives a field to one column: choosing it for another column takes it from the first', () => {
    const start = ['name', 'phone', ''];
    expect(assign(start, 2, 'phone')).toEqual(['name', '', 'phone']);
    expect(assign(start, 0, '')).toEqual(['', 'phone', '']);
    // Ignoring a column leaves the others as they are.
    expect(assign(['', '', ''], 1, '')).toEqual(['', '', '']);
    expect(start).toEqual(['name', 'phone', '']);
  });

  it('sends every column by its number, ignored ones as ""', () => {
    expect(JSON.parse(mappingField(['name', '', 'ext_level']))).toEqual({ '0': 'name', '1': '', '2': 'ext_level' });
  });

  it('names the required fields no column fills, and whether any column is mapped', () => {
    expect(unmappedRequired(['phone', ''], fields).map((f) => f.name)).toEqual(['name']);
    expect(unmappedRequired(['phone', 'name'], fields)).toEqual([]);
    expect(anyMapped(['', ''])).toBe(false);
    expect(anyMapped(['', 'email'])).toBe(true);
  });
});

describe('the file a preview sends', () => {
  it("sends a CSV's first 64 KiB, and a workbook or a small file whole", () => {
    const big = new File([new Uint8Array(PREVIEW_BYTES * 3)], 'big.csv', { type: 'text/csv' });
    expect(previewPart(big).size).toBe(PREVIEW_BYTES);
    const small = new File(['name\nA\n'], 'small.csv');
    expect(previewPart(small)).toBe(small);
    const book = new File([new Uint8Array(PREVIEW_BYTES * 3)], 'Book.XLSX');
    expect(previewPart(book).size).toBe(PREVIEW_BYTES * 3);
  });
});

describe('a job', () => {
  const job = (over: Partial<Parameters<typeof percentDone>[0] & { dryRun: boolean; id: string }>) => ({
    id: 'j',
    status: 'running',
    total: 0,
    processed: 0,
    created: 0,
    updated: 0,
    skipped: 0,
    failed: 0,
    dryRun: false,
    fileName: 'f.csv',
    error: null,
    ...over,
  });

  it('reads its progress: 0 until its rows are counted, 100 when done', () => {
    expect(percentDone(job({ total: 0, processed: 0 }))).toBe(0);
    expect(percentDone(job({ total: 3, processed: 1 }))).toBe(33);
    expect(percentDone(job({ status: 'done', total: 0 }))).toBe(100);
  });

  it('tells of the running import, or of the one it was showing once that one has ended', () => {
    const running = job({ id: 'r' });
    expect(noticedImport([running], null)?.id).toBe('r');
    expect(noticedImport([job({ id: 'r', status: 'done' })], 'r')?.status).toBe('done');
    expect(noticedImport([job({ id: 'r', status: 'failed' })], 'r')?.status).toBe('failed');
    // One that ended unseen is not announced, and a newer running one comes first.
    expect(noticedImport([job({ id: 'r', status: 'done' })], null)).toBeUndefined();
    expect(noticedImport([job({ id: 'n' }), job({ id: 'r', status: 'done' })], 'r')?.id).toBe('n');
  });

  it('finds the newest real import still running, not a dry run nor a finished one', () => {
    const jobs = [
      job({ id: 'dry', dryRun: true }),
      job({ id: 'done', status: 'done' }),
      job({ id: 'queued', status: 'queued' }),
      job({ id: 'older' }),
    ];
    expect(runningImport(jobs)?.id).toBe('queued');
    expect(runningImport([job({ status: 'failed' })])).toBeUndefined();
  });

  it('shows sizes for people', () => {
    expect(byteSize(512)).toBe('512 B');
    expect(byteSize(1536)).toBe('1.5 KB');
    expect(byteSize(3 * 1024 * 1024)).toBe('3.0 MB');
  });
});
