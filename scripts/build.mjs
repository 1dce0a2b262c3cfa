// Bundles the service's TypeScript into dist/cli.js for `npm start`: plain node then runs it, without
// tsx's loader thread (about 70 MB of memory per process and a slower start). Dependencies stay in
// node_modules (PGlite loads its WASM files from there); the migrations are copied beside the bundle.
// The embedded database's thread has its own entry, dist/embeddedWorker.js, which the bundle starts
// from beside itself (src/db/embeddedLink.ts).
// Takes well under a second. Runs on every npm install/ci (prepare), so dist/ exists after
// `npm ci --omit=dev` too.
//
//   node scripts/build.mjs
import { build } from 'esbuild';
import { cpSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: { cli: join(root, 'src', 'cli.ts'), embeddedWorker: join(root, 'src', 'db', 'embeddedWorker.ts') },
  outdir: join(root, 'dist'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});

// The SQL the bundle reads at run time travels with it, so that dist/ needs nothing from src/.
for (const folder of ['migrations', 'recommended']) {
  rmSync(join(root, 'dist', folder), { recursive: true, force: true });
  cpSync(join(root, 'src', 'db', folder), join(root, 'dist', folder), { recursive: true });
}
