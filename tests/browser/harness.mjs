// What every browser test file shares: the static server for dist/ (from `trunk build --release`), Debian's
// headless Chromium driven by playwright-core, fresh pages that fail the test on errors or requests off the
// server, and small helpers for the diagram, the terminal and the clock. A test file calls `useBrowser()` at
// its top level once.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, '../../dist');
export const screenshots = join(here, 'screenshots');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

let server;
let browserServer;
let browser;

// Kill Chromium's whole process group however this process ends (a failed assertion, a timeout, an exception).
let chromiumPid;
function killChromium() {
  if (chromiumPid === undefined) return;
  try { process.kill(-chromiumPid, 'SIGKILL'); } catch { /* already gone */ }
  try { process.kill(chromiumPid, 'SIGKILL'); } catch { /* already gone */ }
  chromiumPid = undefined;
}
process.on('exit', killChromium);

/** Registers the hooks that start the server and Chromium before the file's tests and stop them after. */
export function useBrowser() {
  before(async () => {
    assert.ok(existsSync(join(dist, 'index.html')), `no ${dist}/index.html: run \`trunk build --release\` first`);
    mkdirSync(screenshots, { recursive: true });
    server = await serveStatic(dist);
    browserServer = await chromium.launchServer({ executablePath: CHROMIUM, args: FLAGS, headless: true });
    chromiumPid = browserServer.process().pid;
    browser = await chromium.connect(browserServer.wsEndpoint());
  });
  after(async () => {
    await browser?.close().catch(() => {});
    await browserServer?.close().catch(() => {});
    killChromium();
    await server?.close();
  });
}

/** The static server's base URL (once the `before` hook has run). */
export const appUrl = () => server.url;

/**
 * A fresh page on the app that fails the test on any request off the test server and, unless `allowErrors`, on
 * page errors and console errors.
 */
export async function openApp(t, options = {}, { allowErrors = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, ...options });
  t.after(() => context.close());
  const page = await context.newPage();
  const problems = [];
  if (!allowErrors) {
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
  }
  page.on('request', (request) => {
    if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) {
      problems.push(`request off the test server: ${request.url()}`);
    }
  });
  t.after(() => assert.deepEqual(problems, []));
  return page;
}

export async function loadApp(page) {
  await page.goto(server.url);
  await page.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
  await installed(page);
}

export const tile = (page, name) => page.locator(`svg.diagram [role="button"][aria-label="${name}"]`);
export const simTime = async (page) => Number(await page.locator('#sim-clock').getAttribute('data-ms'));
export const pod = (page, key) => page.locator(`svg.diagram g.pod[data-pod="${key}"]`);
export const shot = (page, name) => page.screenshot({ path: join(screenshots, `${name}.png`) });

/** Types a command into the terminal and waits until its output contains `expect`. */
export async function run(page, line, expect) {
  await page.getByLabel('Command').fill(line);
  await page.getByLabel('Command').press('Enter');
  if (expect) await page.locator('[role="log"]').getByText(expect).first().waitFor();
}

/** Presses "Skip until quiet" (runs ahead until the work requests caused has settled) and waits until done. */
export async function skipUntilQuiet(page) {
  const before = await simTime(page);
  await page.getByRole('button', { name: 'Skip until quiet', exact: true }).click();
  await page.waitForFunction(
    (t0) => Number(document.querySelector('#sim-clock').dataset.ms) > t0
      && document.querySelector('button.skip').dataset.skipping === 'false',
    before,
  );
}

/** Shows one pane of the dock beside the diagram (`Flow`, `Editor`, `Inspect`, `Scenarios`, `Nodes`, `Log`). */
export async function showPane(page, name) {
  await page.getByRole('tab', { name, exact: true }).click();
}

/**
 * Waits until the cluster's install has ended: the page shows the cluster at once and runs its install over the
 * next frames (the clock starts after it).
 */
export async function installed(page) {
  await page.locator('#sim-clock[data-installing="false"]').waitFor();
}
