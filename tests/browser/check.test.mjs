// The fault simulator in WebAssembly: `?check=SEED` plays one `kubeglass check` run in the page (the small size,
// every fault), and its trace hash must equal the native one (`kubeglass check --seed SEED --size small
// --hash`, from the debug binary that `cargo test` builds).
// Run: node --test tests/browser/check.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appUrl, openApp, useBrowser } from './harness.mjs';

useBrowser();

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The native trace hash of a seed, from the debug binary (`cargo run` builds it if `cargo test` did not). */
function nativeHash(seed) {
  const out = execFileSync(
    'cargo',
    [
      'run', '--quiet', '--bin', 'kubeglass', '--',
      'check', '--seed', String(seed), '--size', 'small', '--hash',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  return out.trim();
}

for (const seed of [3, 11]) {
  test(`seed ${seed} gives the same trace hash natively and in WebAssembly`, { timeout: 300_000 }, async (t) => {
    const page = await openApp(t);
    await page.goto(`${appUrl()}?check=${seed}`);
    const result = page.locator('pre#check');
    await result.waitFor({ timeout: 240_000 });
    const wasm = await result.getAttribute('data-trace-hash');
    assert.match(wasm, /^[0-9a-f]{16}$/);
    assert.equal(await result.getAttribute('data-seed'), String(seed));
    assert.equal(await result.getAttribute('data-verdict'), 'passed', await result.textContent());
    assert.equal(wasm, nativeHash(seed));
  });
}
