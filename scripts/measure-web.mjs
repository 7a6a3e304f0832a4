#!/usr/bin/env node
// Measures the web app in headless Chromium and prints the figures the README quotes. Not a test: it asserts
// nothing and takes a few minutes. Needs dist/ from `trunk build --release` and the native CLI (it runs
// `cargo build --release --bin kubeglass` itself, a no-op when built):
//
//   . scripts/setup.sh && trunk build --release && node scripts/measure-web.mjs [--seconds 10] [--skip-big]
//
// What it prints:
// - the shipped bytes: wasm, JS and CSS in dist/, raw and gzipped (gzip -9);
// - time to first render on localhost: the `kubeglass-mounted` mark (navigation start → the app mounted, its
//   diagram showing the default cluster), the median of five fresh loads, and where that time goes: the
//   wasm's download (resource timing), its compile and instantiation (→ `kubeglass-start`, main() runs), the
//   engine building the cluster (→ `kubeglass-booted`), the first view (→ `kubeglass-viewed`), Leptos' first
//   render (→ `kubeglass-mounted`), then the first paint (→ `kubeglass-painted`, the next animation frame) and
//   the cluster's install, which runs over the frames after it (→ `kubeglass-installed`);
// - frame times while the default cluster animates at 1× (and 100×): requestAnimationFrame intervals over
//   --seconds of wall time, as percentiles and frames per second;
// - the same with 100 nodes and 3,000 pods: scripts/measure/hundred-nodes.yaml opened as a share link;
// - the engine's speed in wasm and natively on that scenario: the page's replay of the link (between its
//   `kubeglass-replay-start` and `-end` marks) against `kubeglass bench replay` on the same file, which runs the
//   same replay natively. Both replays are deterministic and end at the same simulated time.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serveStatic } from '../tests/browser/static-server.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const BIG = join(root, 'scripts/measure/hundred-nodes.yaml');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// The browser tests' flags (tests/browser/harness.mjs).
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

const args = process.argv.slice(2);
const seconds = Number(args[args.indexOf('--seconds') + 1] || 10) || 10;
const skipBig = args.includes('--skip-big');

const kb = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];

function sizes() {
  const files = readdirSync(dist).filter((f) => /\.(wasm|js|css)$/.test(f)).sort();
  const rows = files.map((f) => {
    const body = readFileSync(join(dist, f));
    return { file: f, raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
  });
  console.log('## Shipped bytes (dist/, gzip -9)');
  for (const r of rows) console.log(`  ${r.file.padEnd(40)} ${kb(r.raw).padStart(10)} raw ${kb(r.gzip).padStart(10)} gzipped`);
  const code = rows.filter((r) => /\.(wasm|js)$/.test(r.file));
  const sum = (key, list) => list.reduce((a, r) => a + r[key], 0);
  console.log(`  wasm + JS: ${kb(sum('raw', code))} raw, ${kb(sum('gzip', code))} gzipped`);
  console.log(`  everything: ${kb(sum('raw', rows))} raw, ${kb(sum('gzip', rows))} gzipped`);
}

/** The native CLI, built in release mode if needed. */
function cli() {
  execFileSync('cargo', ['build', '--release', '--quiet', '--bin', 'kubeglass'], { cwd: root, stdio: 'inherit' });
  const target = process.env.CARGO_TARGET_DIR ?? join(root, 'target');
  return join(target, 'release', 'kubeglass');
}

/** requestAnimationFrame intervals over `ms` of wall time, in the page. */
async function frames(page, ms) {
  const stamps = await page.evaluate((duration) => new Promise((done) => {
    const t = [];
    const tick = (now) => {
      t.push(now);
      if (now - t[0] < duration) requestAnimationFrame(tick);
      else done(t);
    };
    requestAnimationFrame(tick);
  }), ms);
  const gaps = stamps.slice(1).map((s, i) => s - stamps[i]).sort((a, b) => a - b);
  const elapsed = stamps.at(-1) - stamps[0];
  return {
    fps: (gaps.length / elapsed) * 1000,
    p50: percentile(gaps, 0.5),
    p95: percentile(gaps, 0.95),
    p99: percentile(gaps, 0.99),
    max: gaps.at(-1),
    over33: gaps.filter((g) => g > 33.4).length,
    frames: gaps.length,
  };
}

function printFrames(label, f) {
  console.log(`  ${label}: ${f.fps.toFixed(1)} fps; frame interval p50 ${f.p50.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, `
    + `p99 ${f.p99.toFixed(1)} ms, max ${f.max.toFixed(0)} ms; ${f.over33} of ${f.frames} frames over 33 ms`);
}

/** The start-up's marks (ms after navigation start), in order; each phase ends at its mark. */
const PHASES = [
  ['wasm downloaded', 'wasm'],
  ['compiled, instantiated', 'kubeglass-start'],
  ['cluster built', 'kubeglass-booted'],
  ['first view', 'kubeglass-viewed'],
  ['Leptos render (mounted)', 'kubeglass-mounted'],
  ['first paint', 'kubeglass-painted'],
  ['install done', 'kubeglass-installed'],
];
const startup = (page) => page.evaluate(() => {
  const marks = Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]));
  const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'));
  return { ...marks, wasm: wasm?.responseEnd };
});
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const simMs = (page) => page.evaluate(() => Number(document.querySelector('#sim-clock').dataset.ms));

async function setSpeed(page, speed) {
  await page.locator('#speed').selectOption(String(speed));
}

async function main() {
  if (!existsSync(join(dist, 'index.html'))) {
    console.error(`no ${dist}/index.html: run \`trunk build --release\` first`);
    process.exit(2);
  }
  sizes();
  const server = await serveStatic(dist);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  try {
    console.log('\n## Time to first render (navigation start → app mounted, localhost)');
    const runs = [];
    for (let i = 0; i < 5; i++) {
      const page = await context.newPage();
      await page.goto(server.url);
      await page.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
      await page.waitForFunction(() => performance.getEntriesByName('kubeglass-installed').length > 0);
      runs.push(await startup(page));
      await page.close();
    }
    const loads = runs.map((r) => r['kubeglass-mounted']).sort((a, b) => a - b);
    console.log(`  median ${median(loads).toFixed(0)} ms (five loads: ${loads.map((l) => l.toFixed(0)).join(', ')} ms)`);
    console.log('  where it goes (medians; a phase ends at its mark, ms after navigation start):');
    let previous = () => 0;
    for (const [label, mark] of PHASES) {
      const at = (r) => r[mark] ?? NaN;
      const since = previous;
      const phase = median(runs.map((r) => at(r) - since(r)));
      console.log(`    ${label.padEnd(26)} +${phase.toFixed(0).padStart(4)} ms  → at ${median(runs.map(at)).toFixed(0)} ms`);
      previous = at;
    }

    console.log(`\n## Frames while the default cluster animates (${seconds} s of wall time each)`);
    const page = await context.newPage();
    await page.goto(server.url);
    await page.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
    // A command puts its requests and the watch events they cause on the wire.
    await page.getByLabel('Command').fill('kubectl create deployment web --image=nginx --replicas=3');
    await page.getByLabel('Command').press('Enter');
    printFrames('1×, a Deployment of 3 being created', await frames(page, seconds * 1000));
    await setSpeed(page, 100);
    printFrames('100×', await frames(page, seconds * 1000));
    await page.close();

    if (skipBig) return;
    const kubeglass = cli();
    console.log('\n## 100 nodes, 3,000 pods (scripts/measure/hundred-nodes.yaml as a share link)');
    const native = execFileSync(kubeglass, ['bench', 'replay', BIG], { encoding: 'utf8' }).trim();
    const [, nativeSim, nativeWall] = native.match(/simulated (\d+) ms in (\d+) ms wall/) ?? [];
    const fragment = execFileSync(kubeglass, ['url', BIG], { encoding: 'utf8' }).trim();
    const big = await context.newPage();
    const started = Date.now();
    await big.goto(server.url + fragment);
    await big.locator('[role="button"][aria-label="kube-apiserver"]').waitFor({ timeout: 60 * 60_000 });
    const loadWall = Date.now() - started;
    const replay = await big.evaluate(() => {
      const [start] = performance.getEntriesByName('kubeglass-replay-start');
      const [end] = performance.getEntriesByName('kubeglass-replay-end');
      return start && end ? end.startTime - start.startTime : undefined;
    });
    const pageSim = await simMs(big);
    const pods = await big.locator('svg.diagram .note-summary').allTextContents();
    console.log(`  loaded in ${(loadWall / 1000).toFixed(1)} s wall (the replay ${(replay / 1000).toFixed(1)} s of it); `
      + `${pods.join('; ')}`);
    printFrames('1×', await frames(big, seconds * 1000));
    await setSpeed(big, 100);
    printFrames('100×', await frames(big, seconds * 1000));

    console.log('\n## Engine speed on that scenario (its replay: build, install, 3,000 pods started)');
    const simulated = Number(nativeSim);
    console.log(`  native (kubeglass bench replay): ${(simulated / 1000).toFixed(1)} simulated s in `
      + `${(nativeWall / 1000).toFixed(1)} s wall = ${(simulated / nativeWall).toFixed(2)} simulated s per wall s`);
    console.log(`  wasm (the page, Chromium): ${(simulated / 1000).toFixed(1)} simulated s in `
      + `${(replay / 1000).toFixed(1)} s wall = ${(simulated / replay).toFixed(2)} simulated s per wall s `
      + `(${(replay / nativeWall).toFixed(2)}× native's wall time; the page's clock read ${(pageSim / 1000).toFixed(1)} s after it)`);
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
