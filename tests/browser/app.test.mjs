// End-to-end tests of the built web app (dist/, from `trunk build --release`) in Debian's headless Chromium:
// the diagram, the component toggles, messages in flight, the clock and the themes. Run: node --test tests/browser/
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  appUrl, installed, loadApp, openApp, pod, run, screenshots, shot, simTime, skipUntilQuiet, tile, useBrowser,
} from './harness.mjs';

useBrowser();

const COMPONENTS = [
  'kube-scheduler', 'kube-controller-manager', 'kube-apiserver', 'etcd-0', 'coredns',
  'controlplane', 'controlplane/kubelet', 'controlplane/containerd', 'controlplane/kube-proxy',
  'node01', 'node01/kubelet', 'node01/containerd', 'node01/kube-proxy',
  'node02', 'node02/kubelet', 'node02/containerd', 'node02/kube-proxy',
];

describe('kubeglass web app', () => {
  test('renders the default cluster as an architecture diagram', async (t) => {
    const page = await openApp(t);
    const started = Date.now();
    await loadApp(page);
    const wall = Date.now() - started;
    const mounted = await page.evaluate(() => performance.getEntriesByName('kubeglass-mounted')[0]?.startTime);
    t.diagnostic(`time to first render: ${mounted?.toFixed(0)} ms after navigation start (${wall} ms wall in the test)`);
    assert.equal(await page.locator('#fallback-message').count(), 0, 'the fallback is gone');

    // Every component of the cluster, and each node as a whole, in reading order (control plane, then node by node).
    const names = await page.locator('[role="button"][aria-label]').evaluateAll(
      (elements) => elements.map((e) => e.getAttribute('aria-label')),
    );
    assert.deepEqual(names, COMPONENTS);
    // Each node's card shows its STATUS; the control-plane node carries its taint and its static pods.
    for (const node of ['controlplane', 'node01', 'node02']) {
      assert.match(await tile(page, node).textContent(), /Ready/);
    }
    assert.match(await page.locator('svg.diagram .taints').first().textContent(), /NoSchedule/);
    for (const staticPod of ['etcd-controlplane', 'kube-apiserver-controlplane']) {
      assert.equal(await pod(page, `kube-system/${staticPod}`).getAttribute('data-status'), 'Running');
    }
    // The etcd member is marked leader.
    assert.match(await tile(page, 'etcd-0').textContent(), /leader/);
    // Every connection that is not the apiserver's own (to etcd) or a kubelet's (to its containerd) points at
    // the apiserver.
    const links = await page.locator('svg.diagram line.link').evaluateAll(
      (lines) => lines.map((l) => [l.dataset.from, l.dataset.to]),
    );
    assert.ok(links.length >= 1 + 2 + 3 * 2, `${links.length} links`);
    for (const [from, to] of links) {
      const allowed = to === 'kube-apiserver' || (from === 'kube-apiserver' && to === 'etcd')
        || (from.endsWith('/kubelet') && to === from.replace('/kubelet', '/containerd'));
      assert.ok(allowed, `${from} → ${to}`);
    }
    // The legend names the kinds of messages.
    for (const kind of ['Request', 'Response', 'Watch event']) {
      await page.locator('.legend').getByText(kind).first().waitFor();
    }
    await shot(page, 'default');
  });

  test('every component is a focusable button named by its scenario name, not pressed while running', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    const attributes = await page.locator('svg.diagram [role="button"]').evaluateAll(
      (elements) => elements.map((e) => [e.getAttribute('aria-label'), e.getAttribute('tabindex'), e.getAttribute('aria-pressed')]),
    );
    assert.equal(attributes.length, COMPONENTS.length);
    for (const [name, tabindex, pressed] of attributes) {
      assert.ok(COMPONENTS.includes(name), name);
      assert.equal(tabindex, '0', `${name} is focusable`);
      assert.equal(pressed, 'false', `${name} is running`);
    }
  });

  test('clicking a component stops it (greyed, dashed, badged) and clicking again starts it', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    const scheduler = tile(page, 'kube-scheduler');
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'false');
    assert.equal(await scheduler.locator('.badge-stopped').count(), 0);
    const running = await scheduler.locator('.frame').evaluate((e) => getComputedStyle(e).strokeDasharray);
    assert.equal(running, 'none');

    await scheduler.click();
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'true');
    assert.match(await scheduler.getAttribute('class'), /\bstopped\b/);
    assert.equal(await scheduler.locator('.badge-stopped').textContent(), 'stopped');
    const frame = await scheduler.locator('.frame').evaluate((e) => {
      const style = getComputedStyle(e);
      return { dash: style.strokeDasharray, fill: style.fill };
    });
    assert.notEqual(frame.dash, 'none', 'a stopped component is dashed');
    const label = await scheduler.locator('.comp-label').evaluate((e) => getComputedStyle(e).fill);
    const apiserverLabel = await tile(page, 'kube-controller-manager').locator('.comp-label')
      .evaluate((e) => getComputedStyle(e).fill);
    assert.notEqual(label, apiserverLabel, 'a stopped component is greyed');
    await shot(page, 'scheduler-stopped');

    await scheduler.click();
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'false');
    assert.equal(await scheduler.locator('.badge-stopped').count(), 0);
    assert.equal(await tile(page, 'kube-apiserver').getAttribute('aria-pressed'), 'false');
  });

  test('a node stops and starts all its parts; one part stopped makes it mixed', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    await tile(page, 'node01/kubelet').click();
    assert.equal(await tile(page, 'node01').getAttribute('aria-pressed'), 'mixed');
    await tile(page, 'node01').click();
    for (const name of ['node01', 'node01/kubelet', 'node01/containerd', 'node01/kube-proxy']) {
      assert.equal(await tile(page, name).getAttribute('aria-pressed'), 'false', `${name} started`);
    }
    await tile(page, 'node01').click();
    for (const name of ['node01', 'node01/kubelet', 'node01/containerd', 'node01/kube-proxy']) {
      assert.equal(await tile(page, name).getAttribute('aria-pressed'), 'true', `${name} stopped`);
    }
    assert.equal(await tile(page, 'node02').getAttribute('aria-pressed'), 'false');
    await shot(page, 'node01-stopped');
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
    await shot(page, 'keyboard-stopped');
    await page.keyboard.press('Space');
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'false');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'kube-controller-manager');
    await page.keyboard.press('Space');
    assert.equal(await tile(page, 'kube-controller-manager').getAttribute('aria-pressed'), 'true');
    assert.equal(await scheduler.getAttribute('aria-pressed'), 'false');
    // Node by node: after the control plane comes the control-plane node, then its parts.
    const order = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    assert.deepEqual(order, ['kube-apiserver', 'etcd-0', 'coredns', 'controlplane']);
  });

  test('with kube-scheduler stopped a new pod stays Pending; started, it schedules the pod', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    await tile(page, 'kube-scheduler').click();
    await run(page, 'kubectl run web --image=nginx', 'pod/web created');
    const web = pod(page, 'default/web');
    await web.waitFor();
    assert.equal(await web.getAttribute('data-status'), 'Pending');
    await skipUntilQuiet(page);
    assert.equal(await web.getAttribute('data-status'), 'Pending', 'nobody schedules it');
    assert.match(await web.getAttribute('class'), /pod-pending/);
    // It waits in the "not scheduled yet" zone (with the system pods the install created after the stop).
    const placeOf = (chip) => chip.evaluate((element) => {
      const box = element.querySelector('rect').getBBox();
      const inside = (zone) => {
        const r = zone.querySelector('rect').getBBox();
        return box.x >= r.x && box.x + box.width <= r.x + r.width && box.y >= r.y && box.y + box.height <= r.y + r.height;
      };
      const zone = document.querySelector('svg.diagram .zone-unscheduled');
      if (inside(zone)) return 'unscheduled';
      return [...document.querySelectorAll('svg.diagram g.node-card')].find(inside)?.dataset.node;
    });
    assert.equal(await placeOf(web), 'unscheduled');
    const unscheduled = page.locator('svg.diagram .zone-unscheduled');
    await shot(page, 'pending-without-scheduler');

    await tile(page, 'kube-scheduler').click();
    // The started scheduler schedules nothing until it leads: it waits a whole lease duration (15 s) for the
    // Lease the stopped one left behind, with no request of anyone's on the wire meanwhile.
    await page.locator('#speed').selectOption('100');
    await skipUntilQuiet(page);
    await page.waitForFunction(
      () => document.querySelector('svg.diagram g.pod[data-pod="default/web"]')?.dataset.status === 'Running',
    );
    assert.match(await unscheduled.textContent(), /Not scheduled yet \(0\)/);
    const card = await placeOf(web);
    assert.match(card ?? '', /^node0[12]$/, `the pod runs on a worker (${card})`);
    await shot(page, 'scheduled');
  });

  test('a stopped kubelet turns its node NotReady on the diagram', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    await page.locator('#speed').selectOption('100');
    // Let the kubelet register and renew its Lease first: the node lifecycle controller watches nodes whose
    // Lease it has seen.
    await page.waitForFunction(() => Number(document.querySelector('#sim-clock').dataset.ms) >= 30_000);
    await tile(page, 'node01/kubelet').click();
    // It marks the node NotReady once its Lease is older than the 50 s grace period.
    await page.waitForFunction(
      () => /NotReady/.test(document.querySelector('svg.diagram [aria-label="node01"]')?.textContent ?? ''),
      undefined,
      { timeout: 60_000 },
    );
    assert.match(await page.locator('svg.diagram g.node-card[data-node="node01"]').getAttribute('class'), /not-ready/);
    assert.match(await tile(page, 'node02').textContent(), /Ready/);
    assert.doesNotMatch(await tile(page, 'node02').textContent(), /NotReady/);
    await shot(page, 'kubelet-stopped-not-ready');
  });

  test('many nodes collapse into a grid of tiles under aggregate counts', async (t) => {
    const page = await openApp(t);
    await page.goto(`${appUrl()}?nodes=20&etcd=3`);
    await page.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
    // The grid draws the registered Nodes: each kubelet registers its own during the install.
    await installed(page);
    const names = await page.locator('svg.diagram [role="button"]').evaluateAll(
      (elements) => elements.map((e) => e.getAttribute('aria-label')),
    );
    const expected = ['kube-scheduler', 'kube-controller-manager', 'kube-apiserver', 'etcd-0', 'etcd-1', 'etcd-2',
      'coredns', 'controlplane', ...Array.from({ length: 20 }, (_, i) => `node${String(i + 1).padStart(2, '0')}`)];
    assert.deepEqual(names, expected);
    assert.equal(await page.locator('svg.diagram g.node-card').count(), 0, 'no detailed cards');
    await page.locator('svg.diagram .note-summary').getByText('21 nodes: 21 Ready, 0 NotReady').waitFor();
    assert.match(await tile(page, 'etcd-0').textContent(), /leader/);
    await tile(page, 'node07').click();
    assert.equal(await tile(page, 'node07').getAttribute('aria-pressed'), 'true');
    await shot(page, 'twenty-nodes');
  });

  test('messages travel as arrows from sender to receiver, labelled, request then response', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await run(page, 'kubectl get nodes');
    // Paused: the request waits at kubectl's end of its arrow.
    const request = page.locator('svg.diagram g.flight[data-from="kubectl"][data-to="kube-apiserver"]');
    await request.waitFor();
    assert.equal(await request.getAttribute('data-class'), 'request');
    assert.equal(await request.getAttribute('data-label'), 'list nodes');
    assert.match(await request.locator('.tag').textContent(), /list nodes/);
    const headY = () => request.locator('.trail').evaluate((l) => Number(l.getAttribute('y2')));
    const start = await headY();
    await page.waitForTimeout(300);
    assert.equal(await headY(), start, 'nothing moves while paused');

    // The response's arrow lives for about a second of wall time, which a screenshot can outlast: note each
    // one the page draws.
    await page.evaluate(() => {
      window.responsesSeen = [];
      new MutationObserver(() => {
        const g = document.querySelector('svg.diagram g.flight[data-from="kube-apiserver"][data-to="kubectl"]');
        if (g && !window.responsesSeen.length) window.responsesSeen.push(g.dataset.class);
      }).observe(document.querySelector('svg.diagram'), { subtree: true, childList: true, attributes: true });
    });
    // Playing at 1×, the arrow grows towards the apiserver (downwards) over a visible stretch of wall time.
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.waitForFunction(
      ([y0]) => {
        const trail = document.querySelector('svg.diagram g.flight[data-from="kubectl"] .trail');
        return trail && Number(trail.getAttribute('y2')) > y0 + 5;
      },
      [start],
    );
    await shot(page, 'request-in-flight');
    await page.waitForFunction(() => window.responsesSeen.length > 0);
    assert.deepEqual(await page.evaluate(() => window.responsesSeen), ['response']);
    await page.locator('[role="log"]').getByText('node01').first().waitFor();
  });

  test('the clock: play, pause, step to the next message, speed, skip until quiet', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    const first = await simTime(page);
    await page.waitForFunction((t0) => Number(document.querySelector('#sim-clock').dataset.ms) > t0, first);
    assert.match(await page.locator('#sim-clock').textContent(), /^\d\d:\d\d:\d\d\.\d{3}$/);

    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
    const paused = await simTime(page);
    await page.waitForTimeout(500);
    assert.equal(await simTime(page), paused, 'the clock does not move while paused');

    // Step runs to the next moment a message is sent or delivered, and stays paused.
    const delivered = await page.locator('.deliveries li').first().textContent();
    const flights = await page.locator('svg.diagram g.flight').count();
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.waitForFunction(
      ([d0, f0]) => document.querySelector('.deliveries li')?.textContent !== d0
        || document.querySelectorAll('svg.diagram g.flight').length !== f0,
      [delivered, flights],
    );
    assert.ok(await simTime(page) >= paused);
    await page.getByRole('button', { name: 'Play', exact: true }).waitFor();

    // Speeds from 0.1× to 100×.
    const speeds = await page.locator('#speed option').allTextContents();
    assert.equal(speeds[0], '0.1×');
    assert.equal(speeds.at(-1), '100×');
    assert.equal(await page.locator('#speed').inputValue(), '1', 'the default is 1×');
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.locator('#speed').selectOption('100');
    const fast = await simTime(page);
    await page.waitForFunction((t0) => Number(document.querySelector('#sim-clock').dataset.ms) >= t0 + 10_000, fast);

    // Skip until quiet runs ahead at once.
    await page.locator('#speed').selectOption('1');
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await run(page, 'kubectl create deployment web --image=nginx --replicas=2');
    const before = await simTime(page);
    await skipUntilQuiet(page);
    await page.locator('[role="log"]').getByText('deployment.apps/web created').waitFor();
    assert.ok(await simTime(page) >= before + 5_000, 'at least the quiet window passed');
    assert.equal(await page.locator('svg.diagram g.pod[data-pod^="default/web-"][data-status="Running"]').count(), 2);
    await shot(page, 'deployment-running');
  });

  test('light and dark themes: the system preference, and a toggle that is remembered', async (t) => {
    const page = await openApp(t, { colorScheme: 'dark' });
    await loadApp(page);
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(await background(), 'rgb(14, 19, 27)');
    const toggle = page.getByRole('button', { name: 'Dark theme' });
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    await tile(page, 'node01/kubelet').click();
    await shot(page, 'dark');

    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    assert.equal(await background(), 'rgb(244, 246, 250)');
    await page.reload();
    await page.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
    assert.equal(await background(), 'rgb(244, 246, 250)', 'the choice survives a reload');
    assert.equal(await page.getByRole('button', { name: 'Dark theme' }).getAttribute('aria-pressed'), 'false');
  });

  test('never a blank page: a message shows when WebAssembly cannot load', async (t) => {
    // The aborted download is the point of this test: its errors are expected.
    const page = await openApp(t, {}, { allowErrors: true });
    await page.route('**/*.wasm', (route) => route.abort());
    await page.goto(appUrl());
    await page.getByText('could not start').waitFor();
    assert.equal(await page.locator('[role="button"][aria-label]').count(), 0);
    await page.screenshot({ path: join(screenshots, 'wasm-failed.png'), fullPage: true });
  });

  test('never a blank page: a message shows without JavaScript', async (t) => {
    const page = await openApp(t, { javaScriptEnabled: false });
    await page.goto(appUrl());
    // Playwright's text locators skip <noscript>; read what the page shows instead.
    const text = await page.locator('body').innerText();
    assert.match(text, /needs JavaScript and WebAssembly/);
    assert.doesNotMatch(text, /Loading/);
    await page.screenshot({ path: join(screenshots, 'no-javascript.png'), fullPage: true });
  });
});
