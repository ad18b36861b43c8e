/**
 * Writes test/fixtures/geo-test.mmdb: a tiny IPv4 MaxMind DB (format 2.0) in the GeoLite2-City
 * shape, for the tests of GEOIP_DB. No MaxMind data: two documentation networks with made-up
 * places. Run: npx tsx test/tools/mmdb-fixture.ts
 */
import fs from 'node:fs';

type Value = string | number | bigint | Value[] | { [key: string]: Value };

/** MaxMind DB data section encoding of one value. */
function encode(v: Value): Buffer {
  const control = (type: number, size: number): Buffer => {
    const head: number[] = [];
    let first: number;
    const ext = type > 7 ? [type - 7] : [];
    const t = type > 7 ? 0 : type;
    if (size < 29) first = (t << 5) | size;
    else if (size < 29 + 256) {
      first = (t << 5) | 29;
      head.push(size - 29);
    } else {
      first = (t << 5) | 30;
      const n = size - 285;
      head.push(n >> 8, n & 0xff);
    }
    return Buffer.from([first, ...ext, ...head]);
  };
  if (typeof v === 'string') {
    const bytes = Buffer.from(v, 'utf8');
    return Buffer.concat([control(2, bytes.length), bytes]);
  }
  if (typeof v === 'bigint') {
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64BE(v);
    return Buffer.concat([control(9, 8), bytes]);
  }
  if (typeof v === 'number') {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(v);
    return Buffer.concat([control(6, 4), bytes]);
  }
  if (Array.isArray(v)) return Buffer.concat([control(11, v.length), ...v.map(encode)]);
  const entries = Object.entries(v);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([k, x]) => [encode(k), encode(x)])]);
}

const place = (country: [string, string, string], province: [string, string], city: [string, string]): Value => ({
  country: { iso_code: country[0], names: { en: country[1], 'zh-CN': country[2] } },
  subdivisions: [{ names: { en: province[0], 'zh-CN': province[1] } }],
  city: { names: { en: city[0], 'zh-CN': city[1] } },
});

const networks: { prefix: string; bits: number; data: Value }[] = [
  { prefix: '203.0.113.0', bits: 24, data: place(['CN', 'China', '中国'], ['Guangdong', '广东'], ['Shenzhen', '深圳']) },
  { prefix: '198.51.100.0', bits: 24, data: place(['DE', 'Germany', '德国'], ['Berlin', '柏林'], ['Berlin', '柏林']) },
];

// The search tree: one node per prefix bit, two 24-bit records per node.
const nodes: [number, number][] = [[-1, -1]];
const data: Buffer[] = [];
let dataSize = 0;
const pending: { node: number; side: 0 | 1; offset: number }[] = [];
for (const n of networks) {
  const ip = n.prefix.split('.').reduce((a, o) => (a << 8) | Number(o), 0) >>> 0;
  let node = 0;
  for (let i = 0; i < n.bits; i++) {
    const bit = ((ip >>> (31 - i)) & 1) as 0 | 1;
    if (i === n.bits - 1) {
      pending.push({ node, side: bit, offset: dataSize });
      break;
    }
    let next = nodes[node]![bit];
    if (next === -1) {
      next = nodes.length;
      nodes.push([-1, -1]);
      nodes[node]![bit] = next;
    }
    node = next;
  }
  const bytes = encode(n.data);
  data.push(bytes);
  dataSize += bytes.length;
}
const count = nodes.length;
const tree = Buffer.alloc(count * 6);
const records = nodes.map(([l, r]) => [l === -1 ? count : l, r === -1 ? count : r]);
for (const p of pending) records[p.node]![p.side] = count + 16 + p.offset;
records.forEach(([l, r], i) => {
  tree.writeUIntBE(l!, i * 6, 3);
  tree.writeUIntBE(r!, i * 6 + 3, 3);
});
const metadata = encode({
  binary_format_major_version: 2,
  binary_format_minor_version: 0,
  build_epoch: 1_700_000_000n,
  database_type: 'Rapport-Test-City',
  description: { en: 'Rapport test fixture: made-up places for documentation networks' },
  ip_version: 4,
  languages: ['en', 'zh-CN'],
  node_count: count,
  record_size: 24,
});
const out = Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com'), metadata]);
fs.writeFileSync(new URL('../fixtures/geo-test.mmdb', import.meta.url), out);
console.log(`wrote ${out.length} bytes, ${count} nodes`);
