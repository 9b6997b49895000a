// The IndexedDB matmul tuning cache in a real browser (headless Chromium, WebGPU on SwiftShader): opens
// web/tuning.html?mode=write (a training step compiled with autotune: every matmul shape measured, the choices
// saved in IndexedDB), reloads the page as ?mode=read (new page, new cache object, the database reopened) and
// checks that the same compile read every choice back and measured nothing, with the same table. Exits 1 on any
// failure, naming it. Usage (after `pnpm web:build`): node web/tuningCheck.mjs; with `tune SHAPES [repeats]`
// instead it prints the tuner's table for those shapes on this browser's adapter (shipped-table measurements), with
// `ab [rounds]` the GPT 2×128 step's time with and without the adapter's shipped table.
// Needs Chromium like web/check.mjs (CHROMIUM=/path, deadline NEURA_WEB_TIMEOUT_S, default 300).
import { withDemoPage } from './browserHarness.mjs';

const deadlineS = Number(process.env.NEURA_WEB_TIMEOUT_S ?? 300);

/** Loads `url` in `page` and returns its parsed body[data-result]; a page error throws. */
async function result(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.result || document.body.dataset.error, null, { timeout: deadlineS * 1000 });
  const { result: r, error } = await page.evaluate(() => ({ ...document.body.dataset }));
  if (error) throw new Error(`page ${url}: ${error}`);
  return JSON.parse(r);
}

const fail = (what) => {
  throw new Error(`tuningCheck: ${what}`);
};

await withDemoPage('tuningCheck', deadlineS, async (page, url) => {
  if (process.argv[2] === 'tune') {
    const r = await result(page, `${url}tuning.html?mode=tune&shapes=${process.argv[3] ?? ''}&repeats=${process.argv[4] ?? 3}`);
    console.log(JSON.stringify(r, null, 1));
  } else if (process.argv[2] === 'ab') {
    console.log(JSON.stringify(await result(page, `${url}tuning.html?mode=ab&rounds=${process.argv[3] ?? 4}`), null, 1));
  } else {
    const first = await result(page, `${url}tuning.html?mode=write`);
    console.log(`write: adapter '${first.adapter}', ${first.shapes} matmul shapes, ${first.measured} measured, table ${JSON.stringify(first.tuning)}, loss ${first.loss}`);
    if (!(first.shapes > 0) || first.measured !== first.shapes) fail(`the first compile measured ${first.measured} of ${first.shapes} shapes (expected all: the database was deleted)`);
    if (first.record?.adapter !== first.adapter || JSON.stringify(first.record?.entries) !== JSON.stringify(first.tuning)) fail(`IndexedDB holds ${JSON.stringify(first.record)}, not the table measured`);
    // the page again (a new document: new cache object, the database reopened); only IndexedDB carries the choices
    const second = await result(page, `${url}tuning.html?mode=read`);
    console.log(`read (after a reload): ${second.measured} measured, ${second.cached} of ${second.shapes} from IndexedDB, table ${JSON.stringify(second.tuning)}, loss ${second.loss}`);
    if (second.measured !== 0) fail(`the second compile measured ${second.measured} shapes (expected 0: every choice is in IndexedDB)`);
    if (second.cached !== second.shapes || JSON.stringify(second.tuning) !== JSON.stringify(first.tuning)) fail(`the second compile's table ${JSON.stringify(second.tuning)} differs from the first's ${JSON.stringify(first.tuning)}`);
    if (second.warnings.length || first.warnings.length) fail(`warnings: ${[...first.warnings, ...second.warnings].join('; ')}`);
    if (!Number.isFinite(first.loss) || first.loss !== second.loss) fail(`losses ${first.loss} and ${second.loss} (the same step on the same weights) differ`);
    console.log('tuningCheck: the IndexedDB tuning cache round-trips in Chromium');
  }
});
