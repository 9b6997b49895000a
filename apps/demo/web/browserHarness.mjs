// The headless-Chromium harness the browser checks share (web/check.mjs, web/tuningCheck.mjs, web/screenshots.mjs):
// Debian's Chromium (CHROMIUM=/path overrides), the built demo (web/dist/) served by web/serve.mjs on a free port,
// console and page errors forwarded, a whole-check deadline, and servers and browser always stopped. Never hangs:
// no Chromium is an immediate error.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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
      nav: (({ responseEnd, domInteractive }) => ({ responseEnd: Math.round(responseEnd), domInteractive: Math.round(domInteractive) }))(performance.getEntriesByType('navigation')[0] ?? {}),
      script: Math.round(performance.getEntriesByName('neura:script')[0]?.startTime ?? -1),
    }));
    if (r.done || r.error) return r;
    await new Promise((res) => setTimeout(res, 500));
  }
}
