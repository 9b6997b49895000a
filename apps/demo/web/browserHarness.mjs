// The headless-Chromium harness the browser checks share (web/check.mjs, web/tuningCheck.mjs, web/screenshots.mjs):
// Debian's Chromium (CHROMIUM=/path overrides), the built demo (web/dist/) served by web/serve.mjs on a free port,
// console and page errors forwarded, a whole-check deadline, and servers and browser always stopped. Never hangs:
// no Chromium is an immediate error.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Flags every check launches Chromium with (WebGPU on, no background traffic). */
const BASE_ARGS = ['--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Starts web/serve.mjs with `args` (after the port) and resolves with its URL and the process. */
function serve(name, args) {
  // the server prints its address once it listens (port 0: the OS picks a free one)
  const server = spawn(process.execPath, [join(here, 'serve.mjs'), '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise((resolve, reject) => {
    server.stdout.on('data', (d) => {
      const m = /http:\/\/[\d.]+:\d+\/\S*/.exec(String(d));
      if (m) resolve(m[0]);
    });
    server.on('exit', (code) => reject(new Error(`${name}: the demo server exited (code ${code})`)));
  });
  return { server, url };
}

/** Pids of this process's descendants whose command line has `marker` (Linux /proc; none elsewhere). */
function descendants(marker) {
  if (process.platform !== 'linux') return [];
  const parent = new Map();
  const cmd = new Map();
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      parent.set(p, readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
      cmd.set(p, readFileSync(`/proc/${p}/cmdline`, 'utf8'));
    } catch {} // gone meanwhile
  }
  const mine = (p) => {
    for (let q = p, n = 0; q && q !== '0' && n < 64; q = parent.get(q), n++) if (q === String(process.pid)) return true;
    return false;
  };
  return [...cmd].filter(([p, c]) => c.includes(marker) && mine(p)).map(([p]) => p);
}

/**
 * Lowers the CPU priority of this check's Chromium GPU process, every thread (nice 10, again each second for new
 * threads). With SwiftShader that process runs every GPU kernel on the CPU, and Chromium starts it at nice -8,
 * above the page (0): on a busy 2-core machine it then delayed the page's main thread by tens of ms at a time, a
 * stall a real GPU does not cause. The page, its worker and the rest of Chromium keep their priority.
 */
function deprioritizeGpuProcess() {
  const lower = () => {
    for (const pid of descendants('--type=gpu-process')) {
      try {
        const tids = readdirSync(`/proc/${pid}/task`);
        execFileSync('renice', ['-n', '10', '-p', ...tids], { stdio: 'ignore' });
      } catch {} // no renice, or the process ended: the check runs as before
    }
  };
  lower();
  return setInterval(lower, 1000).unref();
}

/**
 * Runs `check(page, url, { serve })` in a fresh Chromium page against the built demo at `url`, under a deadline of
 * `deadlineS` seconds; `name` prefixes every message; `serve(args)` starts one more server (stopped at the end) and
 * resolves with its URL. A thrown error is printed and sets exit code 1.
 */
export async function withDemoPage(name, deadlineS, check, { extraArgs = [], viewport } = {}) {
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    console.error(`${name}: no Chromium at ${executablePath}. Install Debian's: apt-get install chromium (or set CHROMIUM=/path/to/chrome)`);
    process.exit(1);
  }
  const { chromium } = await import('playwright-core');
  const servers = [];
  let browser;
  const cleanup = async () => {
    for (const s of servers) s.kill();
    await browser?.close().catch(() => {});
  };
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => cleanup().then(() => process.exit(130)));
  const timer = setTimeout(() => {
    console.error(`${name}: no result after ${deadlineS} s`);
    cleanup().then(() => process.exit(1));
  }, deadlineS * 1000);
  const more = (args = []) => {
    const s = serve(name, args);
    servers.push(s.server);
    return s.url;
  };
  try {
    const url = await more();
    browser = await chromium.launch({ executablePath, args: [...BASE_ARGS, ...extraArgs] });
    const page = await browser.newPage(viewport ? { viewport } : {});
    deprioritizeGpuProcess();
    page.on('console', (m) => console.error(`[page] ${m.text()}`));
    page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
    await check(page, url, { serve: more });
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  } finally {
    clearTimeout(timer);
    await cleanup();
  }
}

/**
 * Loads the demo page `url` in `page`, waits until it set body[data-done] (or data-error) and returns body's dataset
 * with the status line, the long tasks the page's observer saw (window.__longTasks), its navigation timing and when
 * its script started (the 'neura:script' mark).
 */
export async function loadDemo(page, url) {
  await page.goto(url);
  // polled from here, not page.waitForFunction: that evaluates Playwright's injected script (~100 ms of main
  // thread in headless Chromium on a busy machine), a long task of the check, not of the page
  for (;;) {
    const r = await page.evaluate(() => ({
      ...document.body.dataset,
      status: document.getElementById('status')?.textContent,
      longTasks: window.__longTasks ?? null,
      longFrames: window.__longFrames ?? [],
      nav: (({ responseEnd, domInteractive }) => ({ responseEnd: Math.round(responseEnd), domInteractive: Math.round(domInteractive) }))(performance.getEntriesByType('navigation')[0] ?? {}),
      script: Math.round(performance.getEntriesByName('neura:script')[0]?.startTime ?? -1),
    }));
    if (r.done || r.error) return r;
    await new Promise((res) => setTimeout(res, 500));
  }
}

/**
 * Runs `load()` (which navigates `page`) under a Chromium trace and returns its result with the main-thread tasks of
 * the page's renderer that took over `overMs` by wall clock, each with its thread CPU time (the trace's `tdur`).
 * A long task observer only sees wall time: on a busy machine a task of 5 ms of work can wait 100 ms for a core.
 */
export async function withMainThreadTasks(page, overMs, load) {
  const cdp = await page.context().newCDPSession(page);
  const keep = []; // only what is needed: thread names, the page's script mark, tasks over the bar
  cdp.on('Tracing.dataCollected', ({ value }) => {
    for (const e of value) if (e.name === 'thread_name' || e.name === 'neura:script' || (e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && e.dur > overMs * 1000)) keep.push(e);
  });
  const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['toplevel', 'blink.user_timing'] }, transferMode: 'ReportEvents' });
  let result;
  try {
    result = await load();
  } finally {
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach().catch(() => {});
  }
  const mark = keep.find((e) => e.name === 'neura:script');
  const main = new Set(keep.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const tasks = keep
    .filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.pid === mark?.pid && main.has(`${e.pid}:${e.tid}`))
    .map((e) => ({ wallMs: Math.round(e.dur / 1000), cpuMs: Math.round((e.tdur ?? e.dur) / 1000), atMs: Math.round((e.ts - mark.ts) / 1000) }));
  return { result, tasks, traced: mark !== undefined };
}
