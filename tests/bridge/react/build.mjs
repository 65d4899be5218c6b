// Builds the React fixture: node build.mjs <outdir>  (default: dist). Writes <outdir>/app.js and <outdir>/index.html.
// Same as: node_modules/.bin/esbuild app.jsx --bundle --format=esm --jsx=automatic \
//            --define:process.env.NODE_ENV='"production"' --outfile=<outdir>/app.js
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const outdir = resolve(process.argv[2] || join(here, 'dist'));
mkdirSync(outdir, { recursive: true });
await esbuild.build({
  entryPoints: [join(here, 'app.jsx')],
  bundle: true,
  format: 'esm',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  outfile: join(outdir, 'app.js'),
  logLevel: 'warning',
});
copyFileSync(join(here, 'index.html'), join(outdir, 'index.html'));
console.log(`built ${join(outdir, 'app.js')}`);
