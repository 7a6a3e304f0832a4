// End-to-end tests of the built web app (dist/, from `trunk build --release`) in Debian's headless Chromium,
// driven by playwright-core. Run: node --test tests/browser/
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from './static-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, '../../dist');
const screenshots = join(here, 'screenshots');
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

/**
 * A fresh page on the app that fails the test on any request off the test server and, unless `allowErrors`, on
 * page errors and console errors.
 */
async function openApp(t, options = {}, { allowErrors = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...options });
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

async function loadApp(page) {
  await page.goto(server.url);
  await page.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
}

const tile = (page, name) => page.locator(`[role="button"][aria-label="${name}"]`);
const simTime = async (page) => Number(await page.locator('#sim-clock').getAttribute('data-ms'));

describe('kubeglass web app', () => {
  test('renders the default cluster', async (t) => {
    const page = await openApp(t);
    const started = Date.now();
    await loadApp(page);
    const wall = Date.now() - started;
    const mounted = await page.evaluate(() => performance.getEntriesByName('kubeglass-mounted')[0]?.startTime);
    t.diagnostic(`time to first render: ${mounted?.toFixed(0)} ms after navigation start (${wall} ms wall in the test)`);

    const names = await page.locator('[role="button"][aria-label]').evaluateAll(
      (elements) => elements.map((e) => e.getAttribute('aria-label')),
    );
    for (const name of ['kube-apiserver', 'kube-scheduler', 'kube-controller-manager', 'etcd-0',
      'node01/kubelet', 'node02/kube-proxy', 'controlplane/containerd', 'coredns']) {
      assert.ok(names.includes(name), `${name} in ${names}`);
    }
    assert.equal(names.length, 14);
    for (const pressed of await page.locator('[role="button"][aria-label]').evaluateAll(
      (elements) => elements.map((e) => e.getAttribute('aria-pressed')),
    )) {
      assert.equal(pressed, 'false');
    }
    const groups = await page.locator('.group[role="group"]').evaluateAll(
      (elements) => elements.map((e) => e.getAttribute('aria-label')),
    );
    assert.deepEqual(groups, ['Control plane', 'etcd', 'Node controlplane', 'Node node01', 'Node node02', 'addon']);
    assert.deepEqual(await page.locator('.group h3').allTextContents(), groups);
    assert.equal(await page.locator('#fallback-message').count(), 0, 'the fallback is gone');
    await page.getByText('No pods yet').first().waitFor();
    await page.screenshot({ path: join(screenshots, 'default.png'), fullPage: true });
  });

  test('clicking a component stops it and clicking again starts it', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    const scheduler = tile(page, 'kube-scheduler');
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'false');
    await scheduler.click();
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'true');
    assert.match(await scheduler.textContent(), /stopped/);
    await page.screenshot({ path: join(screenshots, 'scheduler-stopped.png'), fullPage: true });
    await scheduler.click();
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'false');
    assert.match(await scheduler.textContent(), /running/);
    assert.equal(await tile(page, 'kube-apiserver').getAttribute('aria-pressed'), 'false');
  });

  test('keyboard only: Tab to a component, Enter and Space toggle it', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    let tabs = 0;
    while ((await focused()) !== 'kube-scheduler') {
      assert.ok(++tabs <= 20, 'kube-scheduler is reachable with Tab');
      await page.keyboard.press('Tab');
    }
    const scheduler = tile(page, 'kube-scheduler');
    await page.keyboard.press('Enter');
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'true');
    assert.equal(await focused(), 'kube-scheduler', 'focus stays on the component');
    await page.screenshot({ path: join(screenshots, 'keyboard-stopped.png'), fullPage: true });
    await page.keyboard.press('Space');
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'false');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'kube-controller-manager');
    await page.keyboard.press('Space');
    assert.equal(await tile(page, 'kube-controller-manager').getAttribute('aria-pressed'), 'true');
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'false');
  });

  test('the simulated clock advances while playing and stops while paused', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    const first = await simTime(page);
    await page.waitForFunction((t0) => Number(document.querySelector('#sim-clock').dataset.ms) >= t0 + 300, first);
    assert.match(await page.locator('#sim-clock').textContent(), /^\d\d:\d\d:\d\d\.\d{3}$/);

    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
    const paused = await simTime(page);
    await page.waitForTimeout(700);
    assert.equal(await simTime(page), paused, 'the clock does not move while paused');
    await page.screenshot({ path: join(screenshots, 'paused.png'), fullPage: true });

    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.waitForFunction((t0) => Number(document.querySelector('#sim-clock').dataset.ms) > t0, paused);
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();

    // At 50× the clock moves 5 s of simulated time per 100 ms tick.
    await page.locator('#speed').selectOption('50');
    const fast = await simTime(page);
    await page.waitForFunction((t0) => Number(document.querySelector('#sim-clock').dataset.ms) >= t0 + 10_000, fast);
  });

  test('dark color scheme', async (t) => {
    const page = await openApp(t, { colorScheme: 'dark' });
    await loadApp(page);
    await tile(page, 'node01/kubelet').click();
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, 'rgb(14, 19, 27)');
    await page.screenshot({ path: join(screenshots, 'dark.png'), fullPage: true });
  });

  test('never a blank page: a message shows when WebAssembly cannot load', async (t) => {
    // The aborted download is the point of this test: its errors are expected.
    const page = await openApp(t, {}, { allowErrors: true });
    await page.route('**/*.wasm', (route) => route.abort());
    await page.goto(server.url);
    await page.getByText('could not start').waitFor();
    assert.equal(await page.locator('[role="button"][aria-label]').count(), 0);
    await page.screenshot({ path: join(screenshots, 'wasm-failed.png'), fullPage: true });
  });

  test('never a blank page: a message shows without JavaScript', async (t) => {
    const page = await openApp(t, { javaScriptEnabled: false });
    await page.goto(server.url);
    // Playwright's text locators skip <noscript>; read what the page shows instead.
    const text = await page.locator('body').innerText();
    assert.match(text, /needs JavaScript and WebAssembly/);
    assert.doesNotMatch(text, /Loading/);
    await page.screenshot({ path: join(screenshots, 'no-javascript.png'), fullPage: true });
  });
});
