// Prints the test files (*.test.ts) under the folders given (default: test), one per line, sorted.
// test/ mirrors src/ and goes several folders deep, which neither a shell glob without globstar nor
// Node 20's `--test` (no glob patterns) can find; `npm test` and .ci/run take their list from here:
//   node --import tsx --test $(node scripts/test-files.mjs test/http/request)
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const roots = process.argv.length > 2 ? process.argv.slice(2) : ['test'];
const files = roots.flatMap((root) => (root.endsWith('.test.ts') ? [root] : testFiles(root))).sort();
if (files.length === 0) {
  console.error(`no test file under ${roots.join(', ')}`);
  process.exit(1);
}
console.log(files.join('\n'));
