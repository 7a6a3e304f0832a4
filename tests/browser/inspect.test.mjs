// Browser tests of the glass: the numbered data flow (list and badges on the diagram), a request's path
// through the apiserver's stages, the inspectors (pod YAML, etcd browser, scheduler decision table) and
// tab completion in the terminal. Against dist/ from `trunk build --release`: node --test tests/browser/
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appUrl, installed, openApp as openPage, run, shot as screenshot, showPane, skipUntilQuiet, useBrowser,
} from './harness.mjs';

useBrowser();

/** A fresh page on the app (with `query`, e.g. `?etcd=3`), loaded. */
async function openApp(t, query = '') {
  const page = await openPage(t);
  await page.goto(appUrl() + query);
  await page.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
  await installed(page);
  return page;
}

const shot = (page, name) => screenshot(page, `inspect-${name}`);
const log = (page) => page.locator('[role="log"]');
const flowList = (page) => page.locator('ol[aria-label="Data flow"]');

/** Lets the install settle (the controllers list and watch) before the person acts. */
async function settle(page) {
  await skipUntilQuiet(page);
}

describe('the glass: data flow and inspectors', () => {
  test('a kubectl command is numbered in the Data flow list and on the diagram; focusing a step highlights it', async (t) => {
    const page = await openApp(t);
    await settle(page);
    await run(page, 'kubectl create deployment web --image=nginx', 'deployment.apps/web created');
    await skipUntilQuiet(page);
    const steps = flowList(page).locator('li');
    assert.ok(await steps.count() >= 5, `steps: ${await steps.count()}`);
    const first = steps.first();
    assert.match(await first.textContent(), /①.*kubectl → kube-apiserver.*create deployments/);
    // The chain goes on through the watches: the controller-manager creates the ReplicaSet.
    assert.ok(await steps.filter({ hasText: 'kube-controller-manager → kube-apiserver' }).count() >= 1);
    // Badges on the diagram's connections.
    assert.equal(await page.locator('svg.diagram g.step-badge[data-step="1"]').count(), 1);
    assert.ok(await page.locator('svg.diagram g.step-badge').count() >= 5);
    // The request passed every stage to etcd.
    const path = page.locator('.path').first();
    assert.equal(await path.locator('.stage[data-stage="etcd"]').getAttribute('data-state'), 'passed');
    assert.equal(await path.locator('.stage[data-state="failed"]').count(), 0);
    await shot(page, 'data-flow');

    await first.focus();
    await page.locator('svg.diagram g.step-highlight[data-step="1"]').waitFor();
    assert.equal(await page.locator('svg.diagram g.step-badge.focused[data-step="1"]').count(), 1);
    assert.match(await first.getAttribute('class'), /focused/);
    await shot(page, 'data-flow-focused');
    await steps.nth(1).hover();
    await page.locator('svg.diagram g.step-highlight[data-step="2"]').waitFor();
    assert.equal(await page.locator('svg.diagram g.step-highlight[data-step="1"]').count(), 0);
  });

  test('a forbidden request stops at authorization and never reaches etcd', async (t) => {
    const page = await openApp(t);
    await run(page, 'kubectl --as=someone get secrets', 'Forbidden');
    const path = page.locator('.path').first();
    await path.waitFor();
    assert.match(await path.getAttribute('class'), /refused/);
    assert.equal(await path.locator('.stage[data-stage="authentication"]').getAttribute('data-state'), 'passed');
    assert.equal(await path.locator('.stage[data-stage="authorization"]').getAttribute('data-state'), 'failed');
    assert.equal(await path.locator('.stage[data-stage="etcd"]').getAttribute('data-state'), 'not reached');
    assert.match(await path.textContent(), /stopped at authorization \(403\)/);
    assert.match(await path.locator('.path-why').textContent(), /cannot list resource "secrets"/);
    // No step goes to etcd.
    await skipUntilQuiet(page);
    assert.equal(await flowList(page).locator('li', { hasText: '→ etcd' }).count(), 0);
    await shot(page, 'forbidden');

    // The history keeps both requests; picking the earlier one shows its flow.
    await run(page, 'kubectl get pods -A', 'kube-system');
    assert.equal(await page.locator('.path').first().locator('.stage[data-state="failed"]').count(), 0);
    const picker = page.getByLabel('Request', { exact: true });
    const earlier = await picker.locator('option', { hasText: '--as=someone' }).getAttribute('value');
    await picker.selectOption(earlier);
    assert.equal(await page.locator('.path').first().locator('.stage[data-stage="authorization"]').getAttribute('data-state'), 'failed');
  });

  test("a pod's YAML from its chip, and its key in the etcd browser", async (t) => {
    const page = await openApp(t);
    await settle(page);
    await run(page, 'kubectl run web --image=nginx', 'pod/web created');
    await skipUntilQuiet(page);
    await page.locator('svg.diagram g.pod[data-pod="default/web"]').click();
    const object = page.locator('.object[data-object="pods/default/web"]');
    await object.waitFor();
    const yaml = await object.locator('pre.yaml').textContent();
    assert.match(yaml, /^apiVersion: v1\nkind: Pod\nmetadata:\n/);
    assert.match(yaml, /\nspec:\n/);
    assert.match(yaml, /\nstatus:\n/);
    await object.scrollIntoViewIfNeeded();
    await shot(page, 'pod-yaml');

    await object.getByRole('button', { name: 'etcd: /registry/pods/default/web' }).click();
    const key = page.locator('.etcd-keys button[data-key="/registry/pods/default/web"]');
    await key.waitFor();
    assert.equal(await page.locator('.etcd-value .key').textContent(), '/registry/pods/default/web');
    assert.match(await page.locator('.etcd-value .revs').textContent(), /create_revision \d+ · mod_revision \d+ · version \d+/);
    assert.match(await page.locator('.etcd-value pre').textContent(), /"kind": "Pod"/);
    await page.locator('.etcd-value').scrollIntoViewIfNeeded();
    await shot(page, 'etcd-key');

    // Up to /registry/: the folders.
    await page.locator('.crumbs').getByRole('button', { name: 'registry/' }).click();
    await page.locator('.etcd-keys').getByRole('button', { name: '📁 pods/' }).waitFor();
  });

  test('with three etcd members the browser shows which member holds which revision', async (t) => {
    const page = await openApp(t, '?etcd=3');
    await settle(page);
    await showPane(page, 'Inspect');
    await page.getByRole('tab', { name: 'etcd' }).click();
    await page.locator('.etcd-keys').getByRole('button', { name: '📁 minions/' }).click();
    await page.locator('.etcd-keys button[data-key="/registry/minions/node01"]').click();
    const rows = page.locator('.etcd-value table.members tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 3);
    assert.match(await rows.nth(0).textContent(), /etcd-0/);
    await page.locator('.etcd-value').scrollIntoViewIfNeeded();
    await shot(page, 'etcd-three-members');
  });

  test('the scheduler explains why a pod is Pending', async (t) => {
    const page = await openApp(t);
    await settle(page);
    await run(page, 'kubectl cordon node01', 'node/node01 cordoned');
    await run(page, 'kubectl cordon node02', 'node/node02 cordoned');
    await run(page, 'kubectl run stuck --image=nginx', 'pod/stuck created');
    await skipUntilQuiet(page);
    await showPane(page, 'Inspect');
    await page.getByRole('tab', { name: 'Scheduler' }).click();
    await page.getByLabel('Pod', { exact: true }).selectOption('default/stuck');
    const decision = page.locator('.decision[data-pod="default/stuck"]');
    await decision.waitFor();
    assert.match(await decision.locator('.decision-verdict').textContent(), /^Pending: 0\/3 nodes are available:/);
    const row = decision.locator('tr[data-node="node01"]');
    assert.match(await row.locator('td.v-failed').textContent(), /unschedulable/);
    assert.equal(await decision.locator('tr.chosen').count(), 0);
    await decision.scrollIntoViewIfNeeded();
    await shot(page, 'scheduler-pending');

    await run(page, 'kubectl uncordon node01', 'node/node01 uncordoned');
    await skipUntilQuiet(page);
    await page.waitForFunction(() => document.querySelector('.decision tr.chosen')?.dataset.node === 'node01');
    assert.match(await decision.locator('.decision-verdict').textContent(), /^Bound to node01/);
    await shot(page, 'scheduler-bound');
  });

  test('Tab completes verbs, resource types and names; get -w streams until Ctrl-C', async (t) => {
    const page = await openApp(t);
    await settle(page);
    await run(page, 'kubectl run web --image=nginx', 'pod/web created');
    const input = page.getByLabel('Command');
    await input.fill('kubectl ge');
    await input.press('Tab');
    assert.equal(await input.inputValue(), 'kubectl get ');
    await input.pressSequentially('nod');
    await input.press('Tab');
    assert.equal(await input.inputValue(), 'kubectl get nodes ');
    await input.fill('kubectl get pods w');
    await input.press('Tab');
    assert.equal(await input.inputValue(), 'kubectl get pods web ');
    await input.fill('kubectl de');
    await input.press('Tab');
    await log(page).getByText('delete  describe').waitFor();
    await shot(page, 'completion');

    await run(page, 'kubectl get pods -w', 'NAME');
    await run(page, 'kubectl delete pod web --wait=false');
    await input.fill('');
    await input.press('Control+c');
    await log(page).getByText('^C').waitFor();
  });
});
