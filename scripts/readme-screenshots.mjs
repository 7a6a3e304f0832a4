#!/usr/bin/env node
// Takes the README's screenshots of the web app (docs/screenshots/*.png, 1280×720) in headless Chromium, from
// dist/ (`trunk build --release` first). Not a test; each PNG is about 150–200 kB.
//
//   . scripts/setup.sh && trunk build --release && node scripts/readme-screenshots.mjs
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from '../tests/browser/static-server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(root, 'docs/screenshots');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

if (!existsSync(join(dist, 'index.html'))) {
  console.error(`no ${dist}/index.html: run \`trunk build --release\` first`);
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const server = await serveStatic(dist);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: FLAGS });

async function open(scheme) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme: scheme });
  const page = await context.newPage();
  await page.goto(server.url);
  await page.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
  return page;
}

async function save(page, name) {
  const file = join(out, `${name}.png`);
  await page.screenshot({ path: file });
  console.log(`wrote ${file}`);
  await page.context().close();
}

const pane = (page, name) => page.getByRole('tab', { name, exact: true }).click();
const pause = (page) => page.getByRole('button', { name: 'Pause', exact: true }).click();
async function command(page, line) {
  await page.getByLabel('Command').fill(line);
  await page.getByLabel('Command').press('Enter');
}
async function settle(page) {
  await page.getByRole('button', { name: 'Skip until quiet', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('button.skip').dataset.skipping === 'false');
}
/** Plays at 1× until `count` messages are on the wire, then pauses: arrows mid-flight. */
async function midFlight(page, count = 3) {
  await page.waitForFunction((n) => document.querySelectorAll('svg.diagram g.flight').length >= n, count);
  await pause(page);
}

try {
  // Light: a Deployment being created, its requests and watch events on the wire.
  let page = await open('light');
  await settle(page);
  await command(page, 'kubectl create deployment web --image=nginx --replicas=3');
  await page.waitForTimeout(1500);
  await midFlight(page);
  await save(page, 'light');

  // Dark: the same cluster with node02's kubelet stopped and the pods running.
  page = await open('dark');
  await settle(page);
  await command(page, 'kubectl create deployment web --image=nginx --replicas=3');
  await settle(page);
  await page.locator('svg.diagram [role="button"][aria-label="node02/kubelet"]').click();
  await command(page, 'kubectl get pods -o wide');
  await page.waitForTimeout(1200);
  await midFlight(page, 1);
  await save(page, 'dark');

  // A gallery scenario mid-flight, with its explanation.
  page = await open('light');
  await pane(page, 'Scenarios');
  await page.getByRole('button', { name: 'Scheduler down and the nodeName bypass' }).click();
  await page.getByRole('region', { name: 'Explanation' }).waitFor();
  await command(page, 'kubectl run late --image=nginx');
  await page.waitForTimeout(600);
  await midFlight(page, 1);
  await save(page, 'gallery');

  // The data flow of a command: numbered steps, one focused and drawn on the diagram.
  page = await open('light');
  await settle(page);
  await command(page, 'kubectl create deployment web --image=nginx');
  await page.locator('[role="log"]').getByText('deployment.apps/web created').waitFor();
  await settle(page);
  await pause(page);
  await page.locator('ol[aria-label="Data flow"] li').nth(3).focus();
  await save(page, 'data-flow');

  // An inspector: the scheduler's decision table for a pod that cannot be placed.
  page = await open('light');
  await settle(page);
  await command(page, 'kubectl cordon node01');
  await command(page, 'kubectl run stuck --image=nginx');
  await settle(page);
  await pause(page);
  await pane(page, 'Inspect');
  await page.getByRole('tab', { name: 'Scheduler' }).click();
  await page.getByLabel('Pod', { exact: true }).selectOption('default/stuck');
  await page.locator('.decision[data-pod="default/stuck"]').waitFor();
  await save(page, 'inspector');
} finally {
  await browser.close();
  await server.close();
}
