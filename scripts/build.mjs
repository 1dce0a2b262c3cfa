// Bundles the service's TypeScript into dist/cli.js for `npm start`: plain node then runs it, without
// tsx's loader thread (about 70 MB of memory per process and a slower start). Dependencies stay in
// node_modules (PGlite loads its WASM files from there). Takes well under a second.
//
//   node scripts/build.mjs
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: [join(root, 'src', 'cli.ts')],
  outfile: join(root, 'dist', 'cli.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
