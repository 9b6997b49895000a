// `pnpm size`: the gzipped browser bundle of each budgeted entry (the README's MLP snippet, @neura/nn's main entry,
// each browser subpath of @neura/nn), built like a browser app would (esbuild, minified, code splitting on), checked
// against tooling/size/budgets.json. "initial" is what loads before any code runs (the entry chunk and the chunks it
// imports statically); "lazy" is what dynamic import() may fetch later. Exits 1 when an initial size is over budget
// or a subpath export has no budget. `--json` prints the measurements as JSON instead of the table.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const budgets = JSON.parse(readFileSync(join(root, 'tooling/size/budgets.json'), 'utf8'));
const nnPkg = JSON.parse(readFileSync(join(root, 'packages/nn/package.json'), 'utf8'));

// the README snippet and every @neura/nn export but the Node-only one (it must not bundle for browsers)
const entries = { 'README MLP snippet': 'packages/nn/test/size/readmeMlp.ts' };
for (const [sub, spec] of Object.entries(nnPkg.exports)) {
  if (sub === './node') continue;
  entries[sub === '.' ? '@neura/nn' : `@neura/nn/${sub.slice(2)}`] = join('packages/nn', spec['@neura/source']);
}

/** Bundles one entry; returns gzipped bytes loaded up front and behind dynamic imports, and the biggest modules. */
async function measure(entry) {
  const outdir = join(root, '.cache/size-out');
  const r = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    splitting: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    outdir,
    logLevel: 'silent',
    conditions: ['@neura/source'],
  });
  const gz = new Map(r.outputFiles.filter((f) => f.path.endsWith('.js')).map((f) => [relative(root, f.path), gzipSync(f.contents, { level: 9 }).length]));
  const outputs = r.metafile.outputs;
  const main = Object.keys(outputs).find((k) => outputs[k].entryPoint !== undefined);
  const initial = new Set();
  const visit = (k) => {
    if (initial.has(k)) return;
    initial.add(k);
    for (const i of outputs[k].imports) if (i.kind === 'import-statement' && outputs[i.path]) visit(i.path);
  };
  visit(main);
  let up = 0;
  let lazy = 0;
  for (const [k, bytes] of gz) if (initial.has(k)) up += bytes;
  else lazy += bytes;
  const modules = [...initial].flatMap((k) => Object.entries(outputs[k].inputs)).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
  return { initial: up, lazy, chunks: gz.size, top: modules.slice(0, 8).map(([f, v]) => `${v.bytesInOutput}\t${f}`) };
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const rows = [];
let failed = false;
for (const [name, entry] of Object.entries(entries)) {
  const m = await measure(entry);
  const budget = budgets[name];
  const ok = budget !== undefined && m.initial <= budget * 1024;
  failed ||= !ok;
  rows.push({ name, ...m, budget, ok });
}
if (process.argv.includes('--json')) console.log(JSON.stringify(rows, null, 2));
else {
  const pad = (s, n) => String(s).padEnd(n);
  console.log(`${pad('entry', 22)}${pad('initial (gzip)', 16)}${pad('budget', 12)}${pad('lazy (gzip)', 14)}status`);
  for (const r of rows)
    console.log(`${pad(r.name, 22)}${pad(kb(r.initial), 16)}${pad(r.budget === undefined ? 'none' : `${r.budget} KB`, 12)}${pad(kb(r.lazy), 14)}${r.ok ? 'ok' : r.budget === undefined ? 'NO BUDGET (add one to tooling/size/budgets.json)' : 'OVER BUDGET'}`);
  for (const r of rows.filter((x) => !x.ok)) console.log(`\n${r.name}: biggest modules loaded up front (minified bytes)\n${r.top.join('\n')}`);
}
process.exit(failed ? 1 : 0);
