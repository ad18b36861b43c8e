/**
 * Hand-made ZIP archives for the XLSX reader's tests: entries deflated (or stored) as given, with a
 * declared inflated size that may lie, which no ZIP library would write.
 */
import zlib from 'node:zlib';

export interface ZipInput {
  name: string;
  data: Buffer | string;
  /** The inflated size the archive declares (default: the true one). */
  declaredSize?: number;
  store?: boolean;
}

function crc32(buf: Buffer): number {
  let crc = ~0;
  for (const byte of buf) {
    crc ^= byte;
    for (let k = 0; k < 8; k += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

export function zipArchive(entries: ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data);
    const body = e.store ? data : zlib.deflateRawSync(data, { level: 9 });
    const name = Buffer.from(e.name);
    const size = e.declaredSize ?? data.length;
    // Hostile archives need no checksum that holds; small ones get a true one.
    const crc = data.length < 1024 * 1024 ? crc32(data) : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.store ? 0 : 8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.store ? 0 : 8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="xml" ContentType="application/xml"/></Types>';
const WORKBOOK =
  '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>' +
  '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>' +
  '</Relationships>';

/** A workbook of one sheet, its XML given (and optionally its shared strings' XML), each entry's declared size overridable. */
export function workbook(parts: { sheet: string | Buffer; sharedStrings?: string | Buffer; declared?: Record<string, number> }): Buffer {
  const entries: ZipInput[] = [
    { name: '[Content_Types].xml', data: CONTENT_TYPES },
    { name: 'xl/workbook.xml', data: WORKBOOK },
    { name: 'xl/_rels/workbook.xml.rels', data: RELS },
    { name: 'xl/worksheets/sheet1.xml', data: parts.sheet },
  ];
  if (parts.sharedStrings !== undefined) entries.push({ name: 'xl/sharedStrings.xml', data: parts.sharedStrings });
  for (const e of entries) if (parts.declared?.[e.name] !== undefined) e.declaredSize = parts.declared[e.name];
  return zipArchive(entries);
}

/** A sheet's XML of rows of inline strings. */
export function sheetXml(rows: string[][]): string {
  const esc = (t: string) => t.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
  const body = rows
    .map((cells, r) => `<row r="${r + 1}">${cells.map((c) => `<c t="inlineStr"><is><t>${esc(c)}</t></is></c>`).join('')}</row>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${body}</sheetData></worksheet>`;
}

/** sharedStrings.xml of `count` one-letter strings (no declared count unless `declare`), as a buffer. */
export function manySharedStrings(count: number, declare = false): Buffer {
  const head = `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"${
    declare ? ` count="${count}" uniqueCount="${count}"` : ''
  }>`;
  return Buffer.concat([Buffer.from(head), Buffer.alloc(count * 17, '<si><t>a</t></si>'), Buffer.from('</sst>')]);
}
