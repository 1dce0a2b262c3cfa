#!/usr/bin/env node
/**
 * Writes test/fixtures/qs-6.14.0.json: seeded random query strings (tricky keys, brackets, escapes,
 * case variants, long repeats) with what qs 6.14.0 (the reference's version) parses each into. The
 * unit test test/http/request/qsParse.test.ts checks src/http/request/qsParse.ts against them.
 *
 *   node scripts/qs-oracle.mjs <directory of a qs 6.14.0 package> [count] [seed]
 *   e.g. node scripts/qs-oracle.mjs /tmp/ref/hedera-mirror-rest/node_modules/qs 3000 14
 *
 * (reference-setup.sh's build of the reference has it at that path.)
 */
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const [dir, count = '3000', seed = '14'] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: node scripts/qs-oracle.mjs <qs 6.14.0 package directory> [count] [seed]\n');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(dir), 'index.js'));
const { version } = require('./package.json');
if (version !== '6.14.0') throw new Error(`qs ${version} at ${dir}: 6.14.0 expected`);
const qs = require('./lib/index.js');

let state = Number(seed) >>> 0 || 1;
const random = () => ((state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
const pick = (items) => items[Math.floor(random() * items.length)];

const KEYS = ['a', 'A', 'b', 'timestamp', 'Timestamp', 'contract.id', 'Contract.ID', 'limit', '0', '2', '10', '21', '4294967295', '__proto__', '__PROTO__', 'constructor', 'toString', 'hasOwnProperty', 'x%20y', 'k%zz', 'a+b', ''];
const SUFFIXES = ['', '', '', '[]', '[]', '[0]', '[1]', '[2]', '[5]', '[20]', '[21]', '[-1]', '[01]', '[x]', '[__proto__]', '[constructor]', '[]]', '[', '[[]', '[a][b]', '[0][x]', '[][]', '[1][2][3][4][5][6][7]', '[a]b', '%5B%5D', '%5B0%5D', '%5b1%5d', '%5D', '%5B', '[%5D', '[ ]'];
const VALUES = ['', '1', '2', 'x', 'gte:5', 'lt:0.0.2', '%zz', 'a+b', '%5B', 'b]=c', '=', 'ä', '%C3%A4', 'DESC'];

function part() {
  const key = pick(KEYS) + pick(SUFFIXES);
  const shape = random();
  if (shape < 0.08) return key; // no "="
  return `${key}=${pick(VALUES)}`;
}

function query() {
  const r = random();
  if (r < 0.05) {
    // a long repeat: plain or with brackets, 19 to 30 times
    const key = pick(['a', 'a[]', 'timestamp[]', 'limit']);
    return Array.from({ length: 19 + Math.floor(random() * 12) }, (_, i) => `${key}=${i}`).join('&');
  }
  const parts = Array.from({ length: 1 + Math.floor(random() * 8) }, part);
  return parts.join(random() < 0.05 ? '&&' : '&');
}

const cases = [];
const seen = new Set();
while (cases.length < Number(count)) {
  const q = query();
  if (seen.has(q)) continue;
  seen.add(q);
  cases.push({ q, qs: JSON.stringify(qs.parse(q)) });
}
const out = new URL('../test/fixtures/qs-6.14.0.json', import.meta.url);
writeFileSync(out, `${JSON.stringify({ generatedBy: `scripts/qs-oracle.mjs (qs ${version}, seed ${seed})`, cases }, null, 0)}\n`);
process.stdout.write(`${cases.length} cases to ${out.pathname}\n`);
