/**
 * Writes the files the upload tests and the render benchmark use (`npm run fixtures:files`):
 * test/fixtures/files/ (small: a deck, a Chinese deck, images, and files that must be refused) and
 * bench/fixtures/deck-100.pdf. The output is the same on every run (fixed dates, ids and
 * pseudo-random numbers), so running it again changes nothing in git.
 *
 * test/fixtures/files/fonts/rapport-test-cjk.ttf is not made here: see test/fixtures/files/README.md.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import { type PDFContext, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFString, StandardFonts, rgb } from 'pdf-lib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const testDir = path.join(root, 'test/fixtures/files');
const benchDir = path.join(root, 'bench/fixtures');
const FIXED_DATE = new Date('2026-01-01T00:00:00Z');

/** A small deterministic pseudo-random sequence (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function newDocument(): Promise<PDFDocument> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
  return doc;
}

async function save(doc: PDFDocument, file: string, options: { useObjectStreams?: boolean } = {}): Promise<void> {
  const bytes = await doc.save({ useObjectStreams: options.useObjectStreams ?? true });
  fs.writeFileSync(file, bytes);
}

/** A photo-like picture: gradients, circles and a few words, drawn with the canvas. */
async function picture(width: number, height: number, format: 'png' | 'jpeg', seed: number): Promise<Buffer> {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  const next = random(seed);
  const sky = ctx.createLinearGradient(0, 0, 0, height);
  sky.addColorStop(0, '#2b6cb0');
  sky.addColorStop(1, '#bee3f8');
  ctx.fillStyle = sky;
  ctx.fillRect(0, 0, width, height);
  for (let i = 0; i < 12; i++) {
    ctx.fillStyle = `hsla(${Math.floor(next() * 360)}, 70%, 55%, 0.7)`;
    ctx.beginPath();
    ctx.arc(next() * width, next() * height, 10 + next() * (width / 6), 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.fillStyle = '#1a202c';
  ctx.font = `bold ${Math.round(height / 10)}px sans-serif`;
  ctx.fillText('Rapport', width * 0.08, height * 0.9);
  return format === 'png' ? canvas.encode('png') : canvas.encode('jpeg', 80);
}

/** A deck: each page a title, bullet text, a bar chart, a line chart and the shared picture. */
async function deck(pages: number, seed: number, picturePng: Buffer | null): Promise<PDFDocument> {
  const doc = await newDocument();
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const image = picturePng === null ? null : await doc.embedJpg(picturePng);
  const next = random(seed);
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([960, 540]);
    page.drawRectangle({ x: 0, y: 480, width: 960, height: 60, color: rgb(0.17, 0.42, 0.69) });
    page.drawText(`Quarterly review, part ${p}`, { x: 40, y: 498, size: 28, font: bold, color: rgb(1, 1, 1) });
    const bullets = [
      `Revenue grew ${(5 + next() * 20).toFixed(1)}% against the same quarter last year`,
      `${Math.floor(20 + next() * 80)} new customers signed in ${['north', 'south', 'east', 'west'][p % 4]} region`,
      `Pipeline coverage ${(1.5 + next() * 2).toFixed(2)}x for the next two quarters`,
      'Next steps: follow up with every open opportunity this week',
    ];
    bullets.forEach((text, i) => {
      page.drawCircle({ x: 48, y: 436 - i * 34, size: 4, color: rgb(0.17, 0.42, 0.69) });
      page.drawText(text, { x: 60, y: 430 - i * 34, size: 16, font: regular, color: rgb(0.1, 0.1, 0.15) });
    });
    // Bar chart.
    page.drawLine({ start: { x: 40, y: 60 }, end: { x: 460, y: 60 }, thickness: 1.5, color: rgb(0.3, 0.3, 0.3) });
    for (let b = 0; b < 8; b++) {
      const h = 20 + next() * 150;
      page.drawRectangle({ x: 55 + b * 50, y: 61, width: 32, height: h, color: rgb(0.2 + b * 0.08, 0.5, 0.8 - b * 0.06) });
      page.drawText(`Q${(b % 4) + 1}`, { x: 62 + b * 50, y: 44, size: 10, font: regular });
    }
    // Line chart.
    let d = 'M 0 0';
    for (let i = 1; i <= 12; i++) d += ` L ${i * 30} ${Math.round(next() * 120)}`;
    page.drawSvgPath(d, { x: 520, y: 220, borderColor: rgb(0.85, 0.35, 0.2), borderWidth: 3 });
    page.drawText(`Page ${p} of ${pages}`, { x: 860, y: 16, size: 10, font: regular, color: rgb(0.4, 0.4, 0.4) });
    if (image) page.drawImage(image, { x: 520, y: 250, width: 400, height: 210 });
  }
  return doc;
}

/**
 * Two pages of Chinese text in a CID font the file does not embed (STSong-Light, the Adobe-GB1
 * collection) named through a predefined CMap (UniGB-UCS2-H): drawing it needs pdf.js's CMaps, and
 * glyphs from a font the server has.
 */
async function chineseDeck(): Promise<PDFDocument> {
  const doc = await newDocument();
  const ctx = doc.context;
  const descriptor = ctx.register(
    ctx.obj({
      Type: 'FontDescriptor',
      FontName: 'STSong-Light',
      Flags: 6,
      FontBBox: [-25, -254, 1000, 880],
      ItalicAngle: 0,
      Ascent: 880,
      Descent: -120,
      CapHeight: 880,
      StemV: 93,
    }),
  );
  const cidFont = ctx.register(
    ctx.obj({
      Type: 'Font',
      Subtype: 'CIDFontType0',
      BaseFont: 'STSong-Light',
      CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('GB1'), Supplement: 4 },
      FontDescriptor: descriptor,
      DW: 1000,
    }),
  );
  const font = ctx.register(
    ctx.obj({
      Type: 'Font',
      Subtype: 'Type0',
      BaseFont: 'STSong-Light-UniGB-UCS2-H',
      Encoding: 'UniGB-UCS2-H',
      DescendantFonts: [cidFont],
    }),
  );
  const ucs2 = (s: string) => [...s].map((c) => c.charCodeAt(0).toString(16).padStart(4, '0')).join('');
  for (const text of ['销售演示', '市场分析']) {
    const page = doc.addPage([400, 200]);
    page.node.setFontDictionary(PDFName.of('F1'), font);
    page.node.set(PDFName.of('Contents'), ctx.register(ctx.flateStream(`BT /F1 48 Tf 50 80 Td <${ucs2(text)}> Tj ET`)));
  }
  return doc;
}

/**
 * A page that takes pdf.js minutes and little memory: a free-form Gouraud-shaded mesh (shading type
 * 4) of 4,000 triangles, each covering the whole page, which pdf.js fills pixel by pixel. A few
 * kilobytes.
 */
async function slowDeck(): Promise<PDFDocument> {
  const doc = await newDocument();
  const ctx = doc.context;
  const vertex = (x: number, y: number, rgb: [number, number, number]) => {
    const v = Buffer.alloc(8);
    v.writeUInt16BE(x, 1); // flag 0, then x and y as 16-bit fractions of the Decode ranges
    v.writeUInt16BE(y, 3);
    v.set(rgb, 5);
    return v;
  };
  const triangles: Buffer[] = [];
  for (let i = 0; i < 2000; i++) {
    triangles.push(vertex(0, 0, [i % 256, 0, 0]), vertex(65535, 0, [0, 255, 0]), vertex(0, 65535, [0, 0, 255]));
    triangles.push(vertex(65535, 65535, [255, 255, 0]), vertex(65535, 0, [0, 255, 255]), vertex(0, 65535, [255, 0, 255]));
  }
  const shading = ctx.register(
    ctx.flateStream(Buffer.concat(triangles), {
      ShadingType: 4,
      ColorSpace: 'DeviceRGB',
      BitsPerCoordinate: 16,
      BitsPerComponent: 8,
      BitsPerFlag: 8,
      Decode: [0, 600, 0, 800, 0, 1, 0, 1, 0, 1],
    }),
  );
  const page = doc.addPage([600, 800]);
  page.node.set(PDFName.of('Resources'), ctx.obj({ Shading: { S: shading } }));
  page.node.set(PDFName.of('Contents'), ctx.register(ctx.stream('/S sh')));
  return doc;
}

// ---- Encryption (the PDF standard security handler, revision 2: RC4 with a 40-bit key). ----

const PASSWORD_PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');
const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();
const padded = (password: string) => Buffer.concat([Buffer.from(password, 'latin1'), PASSWORD_PAD]).subarray(0, 32);

function rc4(key: Buffer, data: Uint8Array): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + (s[i] as number) + (key[i % key.length] as number)) & 255;
    [s[i], s[j]] = [s[j] as number, s[i] as number];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + (s[i] as number)) & 255;
    [s[i], s[j]] = [s[j] as number, s[i] as number];
    out[n] = (data[n] as number) ^ (s[((s[i] as number) + (s[j] as number)) & 255] as number);
  }
  return out;
}

/**
 * Encrypts a saved PDF: every stream with its object's RC4 key, and an /Encrypt dictionary in the
 * trailer. With a user password the file does not open without it; with an empty one it opens,
 * its permissions (P) restricting printing and copying.
 */
async function encrypt(bytes: Uint8Array, userPassword: string, ownerPassword: string): Promise<Uint8Array> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const ctx: PDFContext = doc.context;
  const id = md5(Buffer.from(`rapport-fixture-${userPassword}-${ownerPassword}`));
  const permissions = -44; // no printing, no changes, no copying
  const o = rc4(md5(padded(ownerPassword)).subarray(0, 5), padded(userPassword));
  const p = Buffer.alloc(4);
  p.writeInt32LE(permissions);
  const key = md5(padded(userPassword), o, p, id).subarray(0, 5);
  const u = rc4(key, PASSWORD_PAD);
  for (const [ref, object] of ctx.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream)) continue;
    const n = Buffer.alloc(5);
    n.writeUIntLE(ref.objectNumber, 0, 3);
    n.writeUIntLE(ref.generationNumber, 3, 2);
    const objectKey = md5(key, n).subarray(0, 10);
    ctx.assign(ref, PDFRawStream.of(object.dict, rc4(objectKey, object.contents)));
  }
  const encryptDict = ctx.obj({
    Filter: 'Standard',
    V: 1,
    R: 2,
    O: PDFHexString.of(o.toString('hex')),
    U: PDFHexString.of(u.toString('hex')),
    P: PDFNumber.of(permissions),
  });
  ctx.trailerInfo.Encrypt = ctx.register(encryptDict);
  ctx.trailerInfo.ID = ctx.obj([PDFHexString.of(id.toString('hex')), PDFHexString.of(id.toString('hex'))]);
  return doc.save({ useObjectStreams: false });
}

// ---- Images refused from their header alone. ----

function crc32(data: Buffer): number {
  let c = ~0;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG whose header says 8000 × 6000 (48 megapixels) with next to no pixel data: it must be refused before decoding. */
function hugePng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(8000, 0);
  ihdr.writeUInt32BE(6000, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(64))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JPEG whose frame header, after an APP0 segment, says 10000 × 5000 (50 megapixels). */
function hugeJpeg(): Buffer {
  const app0 = Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1');
  const segment = (marker: number, body: Buffer) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([head, body]);
  };
  const sof = Buffer.from([8, 0, 0, 0, 0, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  sof.writeUInt16BE(5000, 1);
  sof.writeUInt16BE(10000, 3);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), segment(0xe0, app0), segment(0xc0, sof), Buffer.from([0xff, 0xd9])]);
}

async function main(): Promise<void> {
  fs.mkdirSync(testDir, { recursive: true });
  fs.mkdirSync(benchDir, { recursive: true });
  const photoJpeg = await picture(640, 336, 'jpeg', 7);

  await save(await deck(3, 1, photoJpeg), path.join(testDir, 'deck.pdf'));
  await save(await chineseDeck(), path.join(testDir, 'chinese.pdf'));
  await save(await slowDeck(), path.join(testDir, 'slow.pdf'));
  const plain = await (await deck(1, 2, null)).save({ useObjectStreams: false });
  fs.writeFileSync(path.join(testDir, 'encrypted-password.pdf'), await encrypt(plain, 'secret', 'owner'));
  fs.writeFileSync(path.join(testDir, 'encrypted-permissions.pdf'), await encrypt(plain, '', 'owner'));
  // A PDF header and then nothing a PDF is made of.
  fs.writeFileSync(path.join(testDir, 'corrupt.pdf'), Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2048, 0x41)]));
  fs.writeFileSync(path.join(testDir, 'not-a-pdf.pdf'), 'This is a text file with a .pdf name.\n');
  fs.writeFileSync(path.join(testDir, 'photo.png'), await picture(800, 600, 'png', 3));
  fs.writeFileSync(path.join(testDir, 'photo.jpg'), photoJpeg);
  fs.writeFileSync(path.join(testDir, 'huge.png'), hugePng());
  fs.writeFileSync(path.join(testDir, 'huge.jpg'), hugeJpeg());

  await save(await deck(100, 100, await picture(480, 252, 'jpeg', 11)), path.join(benchDir, 'deck-100.pdf'));
  for (const dir of [testDir, benchDir]) {
    for (const f of fs.readdirSync(dir).sort()) {
      const stat = fs.statSync(path.join(dir, f));
      if (stat.isFile()) process.stdout.write(`${path.relative(root, path.join(dir, f))}: ${stat.size} bytes\n`);
    }
  }
}

await main();
