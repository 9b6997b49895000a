// `pnpm size`: the gzipped browser bundle of each budgeted entry (the README's MLP snippet, @neura/nn's main entry,
// each browser subpath of @neura/nn), built like a Vite app would (rolldown, Vite's bundler; minified), checked
// against tooling/size/budgets.json. "initial" is what loads before any code runs (the entry chunk and the chunks it
// imports statically); "lazy" is what dynamic import() may fetch later. For the README snippet, "first step" is what
// the page has fetched once its first step runs: the initial chunks and the chunks that compile imports on demand on
// the snippet's path (the optimizer's, packages/nn/src/onDemand.ts; readmeMlpChunks.gpu.test.ts checks that list by
// running the bundle). Exits 1 when an initial size is over budget or a subpath export has no budget. `--json` prints
// the measurements as JSON instead of the table.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { rolldown } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const budgets = JSON.parse(readFileSync(join(root, 'tooling/size/budgets.json'), 'utf8'));
const nnPkg = JSON.parse(readFileSync(join(root, 'packages/nn/package.json'), 'utf8'));

// the README snippet and every @neura/nn export but the Node-only one (it must not bundle for browsers)
const entries = { 'README MLP snippet': 'packages/nn/test/size/readmeMlp.ts' };
// modules an entry's path imports on demand before its first step (their chunks count in "first step")
const firstStep = { 'README MLP snippet': ['packages/nn/src/onDemand.ts'] };
for (const [sub, spec] of Object.entries(nnPkg.exports)) {
  if (sub === './node') continue;
  entries[sub === '.' ? '@neura/nn' : `@neura/nn/${sub.slice(2)}`] = join('packages/nn', spec['@neura/source']);
}

/** Bundles one entry; returns gzipped bytes loaded up front, behind dynamic imports and (given `onPath`) before the first step, and the biggest modules. */
async function measure(entry, onPath) {
  const bundle = await rolldown({
    input: join(root, entry),
    platform: 'browser',
    resolve: { conditionNames: ['@neura/source', 'import', 'default'] },
    logLevel: 'silent',
  });
  const { output } = await bundle.generate({ format: 'esm', minify: true });
  await bundle.close();
  const chunks = new Map(output.filter((c) => c.type === 'chunk').map((c) => [c.fileName, c]));
  const closure = (names) => {
    const seen = new Set();
    const visit = (name) => {
      if (seen.has(name) || !chunks.has(name)) return;
      seen.add(name);
      for (const i of chunks.get(name).imports) visit(i);
    };
    for (const n of names) visit(n);
    return seen;
  };
  const entryChunks = [...chunks.values()].filter((c) => c.isEntry).map((c) => c.fileName);
  const initial = closure(entryChunks);
  const pathChunks = (onPath ?? []).map((m) => {
    const c = [...chunks.values()].find((x) => Object.keys(x.modules).includes(join(root, m)));
    if (!c) throw new Error(`size: ${m} is in no chunk of ${entry}`);
    return c.fileName;
  });
  const beforeStep = closure([...entryChunks, ...pathChunks]);
  let up = 0;
  let lazy = 0;
  let first = 0;
  for (const [name, c] of chunks) {
    const bytes = gzipSync(c.code, { level: 9 }).length;
    if (initial.has(name)) up += bytes;
    else lazy += bytes;
    if (beforeStep.has(name)) first += bytes;
  }
  const modules = [...initial].flatMap((n) => Object.entries(chunks.get(n).modules)).sort((a, b) => b[1].renderedLength - a[1].renderedLength);
  return { initial: up, lazy, ...(onPath ? { firstStep: first } : {}), chunks: chunks.size, top: modules.slice(0, 8).map(([f, m]) => `${m.renderedLength}\t${relative(root, f)}`) };
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const rows = [];
let failed = false;
for (const [name, entry] of Object.entries(entries)) {
  const m = await measure(entry, firstStep[name]);
  const budget = budgets[name];
  const ok = budget !== undefined && m.initial <= budget * 1024;
  failed ||= !ok;
  rows.push({ name, ...m, budget, ok });
}
if (process.argv.includes('--json')) console.log(JSON.stringify(rows, null, 2));
else {
  const pad = (s, n) => String(s).padEnd(n);
  console.log(`${pad('entry', 22)}${pad('initial (gzip)', 16)}${pad('budget', 12)}${pad('lazy (gzip)', 14)}${pad('first step', 13)}status`);
  for (const r of rows)
    console.log(`${pad(r.name, 22)}${pad(kb(r.initial), 16)}${pad(r.budget === undefined ? 'none' : `${r.budget} KB`, 12)}${pad(kb(r.lazy), 14)}${pad(r.firstStep === undefined ? '' : kb(r.firstStep), 13)}${r.ok ? 'ok' : r.budget === undefined ? 'NO BUDGET (add one to tooling/size/budgets.json)' : 'OVER BUDGET'}`);
  for (const r of rows.filter((x) => !x.ok)) console.log(`\n${r.name}: biggest modules loaded up front (minified bytes)\n${r.top.join('\n')}`);
}
process.exit(failed ? 1 : 0);
