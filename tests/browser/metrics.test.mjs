// End-to-end test of the metrics-server add-on in the built web app (dist/, from `trunk build --release`): the
// gallery entry that installs it, its box on the diagram, and `kubectl top` in the page's terminal before and
// after metrics-server has scraped the kubelets twice. Run: node --test tests/browser/metrics.test.mjs
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  loadApp, openApp, run, shot, showPane, simTime, skipUntilQuiet, tile, useBrowser,
} from './harness.mjs';

useBrowser();

const ENTRY = 'metrics-server and kubectl top';
// metrics-server scrapes every 15 s and reports a node or pod once two scrapes in a row have seen it.
const TWO_SCRAPES_MS = 2 * 15_000 + 5_000;

/** The lines the terminal printed for the last time `command` was typed (up to the next prompt line). */
async function outputOf(page, command) {
  const lines = await page.locator('[role="log"] .term-line').evaluateAll(
    (elements) => elements.map((e) => [e.classList.contains('term-input'), e.textContent]),
  );
  const start = lines.findLastIndex(([input, text]) => input && text === `$ ${command}`);
  assert.ok(start >= 0, `${command} was typed`);
  const end = lines.findIndex(([input], i) => i > start && input);
  return lines.slice(start + 1, end < 0 ? undefined : end).map(([, text]) => text);
}

/** Runs `command` and waits until its output has `rows` lines after the header (kubectl prints a table at once). */
async function table(page, command, rows) {
  await run(page, command);
  await page.waitForFunction(
    ([line, count]) => {
      const all = [...document.querySelectorAll('[role="log"] .term-line')];
      const at = all.findLastIndex((e) => e.classList.contains('term-input') && e.textContent === `$ ${line}`);
      return at >= 0 && all.slice(at + 1).filter((e) => e.classList.contains('term-output')).length >= count + 1;
    },
    [command, rows],
  );
  return outputOf(page, command);
}

describe('metrics-server add-on', () => {
  test('the gallery entry installs metrics-server and kubectl top answers after two scrapes', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    assert.equal(await tile(page, 'metrics-server').count(), 0, 'the default cluster has no metrics-server');

    await showPane(page, 'Scenarios');
    await page.getByRole('button', { name: ENTRY, exact: true }).click();
    const explanation = page.getByRole('region', { name: 'Explanation' });
    await explanation.getByText(/kubectl top node/).first().waitFor();

    // An add-on box of its own, beside CoreDNS, a client of the apiserver like the others, and running.
    const box = tile(page, 'metrics-server');
    await box.waitFor();
    assert.match(await box.getAttribute('class'), /\bcomp-addon\b/);
    assert.equal(await box.getAttribute('aria-pressed'), 'false');
    assert.match(await tile(page, 'coredns').getAttribute('class'), /\bcomp-addon\b/);
    const links = await page.locator('svg.diagram line.link').evaluateAll(
      (lines) => lines.map((l) => `${l.dataset.from}→${l.dataset.to}`),
    );
    assert.ok(links.includes('metrics-server→kube-apiserver'), links.join(' '));

    // Right after the replay it has not scraped twice: kubectl says so, as the replayed step did.
    await page.locator('[role="log"]').getByText('error: metrics not available yet').first().waitFor();
    await run(page, 'kubectl top node');
    await page.waitForFunction(() => {
      const all = [...document.querySelectorAll('[role="log"] .term-line')];
      return all.at(-1)?.textContent === 'error: metrics not available yet';
    });
    const loaded = await simTime(page);

    // Let simulated time run past two scrapes.
    while (await simTime(page) < loaded + TWO_SCRAPES_MS) await skipUntilQuiet(page);
    t.diagnostic(`skipped ${((await simTime(page)) - loaded) / 1000} s of simulated time`);

    // One row per node on the diagram, with kubectl's header, each cell a measurement.
    const nodes = await page.locator('svg.diagram g.node-card').evaluateAll(
      (cards) => cards.map((c) => c.dataset.node),
    );
    assert.ok(nodes.length >= 2, nodes.join(' '));
    const top = await table(page, 'kubectl top node', nodes.length);
    t.diagnostic(top.join('\n'));
    assert.match(top[0], /^NAME +CPU\(cores\) +CPU\(%\) +MEMORY\(bytes\) +MEMORY\(%\) *$/);
    const rows = top.slice(1).map((l) => l.trim().split(/ +/));
    assert.deepEqual(rows.map((r) => r[0]), nodes);
    for (const [name, cpu, cpuPct, memory, memoryPct] of rows) {
      assert.match(cpu, /^\d+m$/, name);
      assert.match(cpuPct, /^\d+%$/, name);
      assert.match(memory, /^\d+Mi$/, name);
      assert.match(memoryPct, /^\d+%$/, name);
    }
    // The control plane runs etcd, the apiserver, the controller manager and the scheduler: it holds the most
    // memory.
    const mebibytes = rows.map((r) => Number(r[3].slice(0, -2)));
    assert.equal(rows[mebibytes.indexOf(Math.max(...mebibytes))][0], 'controlplane', top.join('\n'));

    // The web pods' usage is what their annotations declare.
    const pods = await table(page, 'kubectl top pod -l app=web', 2);
    assert.match(pods[0], /^NAME +CPU\(cores\) +MEMORY\(bytes\) *$/);
    for (const line of pods.slice(1)) assert.match(line, /^web-[a-z0-9]+-[a-z0-9]{5} +120m +48Mi *$/);
    // Each row is one line of the log, as tall as the prompt line above it (no gaps inside the table).
    const heights = await page.locator('[role="log"] .term-line').evaluateAll(
      (elements) => elements.slice(-3).map((e) => e.getBoundingClientRect().height),
    );
    const inputHeight = await page.locator('[role="log"] .term-line.term-input').last()
      .evaluate((e) => e.getBoundingClientRect().height);
    assert.deepEqual(heights, [inputHeight, inputHeight, inputHeight]);
    await shot(page, 'metrics-top');

    // Its scrapes go straight to each kubelet, not through the apiserver: step message by message to the next.
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    const scrape = page.locator('svg.diagram g.flight[data-from="metrics-server"][data-class="kubelet"]').first();
    let steps = 0;
    for (; steps < 5_000 && await scrape.count() === 0; steps += 1) {
      await page.getByRole('button', { name: 'Step', exact: true }).click();
    }
    t.diagnostic(`${steps} steps to metrics-server's next scrape`);
    const [to, label] = await scrape.evaluate((g) => [g.dataset.to, g.dataset.label]);
    t.diagnostic(`metrics-server → ${to}: ${label}`);
    assert.ok(nodes.map((n) => `${n}/kubelet`).includes(to), to);
    await page.locator('.legend').getByText('kubelet API (logs, exec, metrics)').waitFor();
    await shot(page, 'metrics-scrape');
    await page.getByRole('button', { name: 'Play', exact: true }).click();

    // Stopped, metrics-server no longer backs metrics.k8s.io.
    await box.click();
    assert.equal(await box.getAttribute('aria-pressed'), 'true');
    await run(page, 'kubectl top pod', 'error: Metrics API not available');
    await shot(page, 'metrics-server-stopped');
  });
});
