// The headless-Chromium harness the browser checks share (web/check.mjs, web/tuningCheck.mjs): Debian's Chromium
// (CHROMIUM=/path overrides), the demo server on a free port, console and page errors forwarded, a whole-check
// deadline, and the server and browser always stopped. Never hangs: no Chromium is an immediate error.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Flags every check launches Chromium with (WebGPU on, no background traffic). */
const BASE_ARGS = ['--enable-unsafe-webgpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Runs `check(page, url)` in a fresh Chromium page against the demo server at `url`, under a deadline of `deadlineS`
 * seconds; `name` prefixes every message. A thrown error is printed and sets exit code 1.
 */
export async function withDemoPage(name, deadlineS, check, { extraArgs = [], viewport } = {}) {
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    console.error(`${name}: no Chromium at ${executablePath}. Install Debian's: apt-get install chromium (or set CHROMIUM=/path/to/chrome)`);
    process.exit(1);
  }
  const { chromium } = await import('playwright-core');
  let server;
  let browser;
  const cleanup = async () => {
    server?.kill();
    await browser?.close().catch(() => {});
  };
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => cleanup().then(() => process.exit(130)));
  const timer = setTimeout(() => {
    console.error(`${name}: no result after ${deadlineS} s`);
    cleanup().then(() => process.exit(1));
  }, deadlineS * 1000);
  try {
    // the server prints its address once it listens (port 0: the OS picks a free one)
    server = spawn(process.execPath, [join(here, 'serve.mjs'), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise((resolve, reject) => {
      server.stdout.on('data', (d) => {
        const m = /http:\/\/[\d.]+:\d+\//.exec(String(d));
        if (m) resolve(m[0]);
      });
      server.on('exit', (code) => reject(new Error(`${name}: the demo server exited (code ${code})`)));
    });
    browser = await chromium.launch({ executablePath, args: [...BASE_ARGS, ...extraArgs] });
    const page = await browser.newPage(viewport ? { viewport } : {});
    page.on('console', (m) => console.error(`[page] ${m.text()}`));
    page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
    await check(page, url);
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  } finally {
    clearTimeout(timer);
    await cleanup();
  }
}
