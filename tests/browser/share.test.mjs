// End-to-end tests of the manifest editor, share links, scenario files, the guided gallery and the component
// menu, against dist/ (from `trunk build --release`) in Debian's headless Chromium. Run:
// node --test tests/browser/share.test.mjs
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appUrl, loadApp, openApp, run, shot as screenshot, showPane, simTime, skipUntilQuiet, tile, useBrowser,
} from './harness.mjs';

useBrowser();

const shot = (page, name) => screenshot(page, `share-${name}`);
const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`;
const WIDGET = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: blue\nspec:\n  size: 3\n';
const editor = (page) => page.getByLabel('Manifest', { exact: true });
const applyOutput = (page) => page.getByRole('status', { name: 'Apply output' });

/** Every pod chip on the diagram: `namespace/name` → status. */
const podStates = (page) => page.locator('svg.diagram g.pod[data-pod]').evaluateAll(
  (chips) => Object.fromEntries(chips.map((c) => [c.dataset.pod, c.dataset.status])),
);
const pressedStates = (page) => page.locator('svg.diagram [role="button"][aria-label]').evaluateAll(
  (els) => Object.fromEntries(els.map((e) => [e.getAttribute('aria-label'), e.getAttribute('aria-pressed')])),
);

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: hello
spec:
  replicas: 3
  selector:
    matchLabels: {app: hello}
  template:
    metadata:
      labels: {app: hello}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`;

describe('manifest editor, sharing, gallery, component menu', () => {
  test('a pasted Deployment applied from the editor runs its pods on the diagram', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    await showPane(page, 'Editor');
    await editor(page).fill(DEPLOYMENT);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await applyOutput(page).getByText('deployment.apps/hello created').waitFor();
    await skipUntilQuiet(page);
    await page.waitForFunction(
      () => document.querySelectorAll('svg.diagram g.pod[data-pod^="default/hello-"][data-status="Running"]').length === 3,
    );
    assert.equal(await editor(page).inputValue(), DEPLOYMENT, 'the text stays');
    await shot(page, 'deployment-applied');
  });

  test('a CustomResourceDefinition pasted in the editor serves its kind, printed with its columns', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    await showPane(page, 'Editor');
    await editor(page).fill(CRD);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await applyOutput(page).getByText('customresourcedefinition.apiextensions.k8s.io/widgets.example.com created').waitFor();
    // As on a real cluster, kubectl maps the new kind once discovery lists it: when it is Established (the
    // apiserver's controllers write that a moment later; the page plays those messages in slow motion).
    await skipUntilQuiet(page);
    await run(page, 'kubectl get crd widgets.example.com -o jsonpath={.status.conditions[1].reason}', 'InitialNamesAccepted');
    await editor(page).fill(WIDGET);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    // The first create of a kind established a moment ago waits two simulated seconds (the CRD handler's
    // sleep): run ahead rather than wait for them in real time.
    await skipUntilQuiet(page);
    await applyOutput(page).getByText('widget.example.com/blue created').waitFor();
    await run(page, 'kubectl get widgets', 'SIZE');
    const log = page.locator('[role="log"]');
    await log.getByText(/^blue\s+3\s+\S+$/).first().waitFor();
    await shot(page, 'custom-resource');
  });

  test('a bad manifest shows kubectl\'s error with its line and column, and the text survives a reload', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    const bad = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: broken\n   labels: {a: b}\n';
    await showPane(page, 'Editor');
    await editor(page).fill(bad);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    const output = applyOutput(page);
    await output.getByText('error: error parsing STDIN: error converting YAML to JSON: yaml: line 5:').waitFor();
    const at = output.getByRole('button', { name: /^Line 5, column \d+$/ });
    await at.waitFor();
    assert.equal(await editor(page).inputValue(), bad);
    await shot(page, 'yaml-error');
    // The position button puts the cursor on that line.
    await at.click();
    const caret = await editor(page).evaluate((el) => el.value.slice(0, el.selectionStart).split('\n').length);
    assert.equal(caret, 5);

    // A field the apiserver refuses: kubectl's exact message, placed at the field.
    const unknown = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: typo\nspec:\n  containerz: []\n';
    await editor(page).fill(unknown);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await output.getByText('strict decoding error: unknown field "spec.containerz"').waitFor();
    await output.getByRole('button', { name: 'Line 6, column 3' }).waitFor();
    await shot(page, 'field-error');

    await page.reload();
    await page.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
    assert.equal(await editor(page).inputValue(), unknown, 'the text survives a reload');
  });

  test('an example is one click away and is added without losing the text', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    await showPane(page, 'Editor');
    await editor(page).fill('');
    await page.getByRole('button', { name: 'Pod with nodeName' }).click();
    assert.match(await editor(page).inputValue(), /nodeName: node01/);
    await page.getByRole('button', { name: 'Service', exact: true }).click();
    assert.match(await editor(page).inputValue(), /nodeName: node01\n[^]*\n---\napiVersion: v1\nkind: Service\n/);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await applyOutput(page).getByText('service/web created').waitFor();
    assert.match(await applyOutput(page).textContent(), /pod\/pinned created/);
  });

  test('kubectl edit opens the object in the editor, and Apply sends the edited text', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    await showPane(page, 'Editor');
    await editor(page).fill('');
    await showPane(page, 'Flow');
    await run(page, 'kubectl create deployment edited --image=nginx', 'deployment.apps/edited created');
    await run(page, 'kubectl edit deployment edited', 'Opened deployment.apps/edited in the Manifest editor');
    // The editor's pane comes to the front.
    assert.equal(await page.getByRole('tab', { name: 'Editor', exact: true }).getAttribute('aria-selected'), 'true');
    const opened = await editor(page).inputValue();
    assert.match(opened, /kind: Deployment\n/);
    assert.match(opened, /name: edited\n/);
    await editor(page).fill(opened.replace('replicas: 1', 'replicas: 2'));
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await applyOutput(page).getByText('deployment.apps/edited configured').waitFor();
    await shot(page, 'edit-opened');
  });

  test('Share gives a link that opens in a fresh page at the same state', async (t) => {
    const page = await openApp(t, { permissions: ['clipboard-read', 'clipboard-write'] });
    await loadApp(page);
    await page.getByLabel('Command').fill('kubectl create deployment web --image=nginx --replicas=2');
    await page.getByLabel('Command').press('Enter');
    await page.locator('[role="log"]').getByText('deployment.apps/web created').waitFor();
    await skipUntilQuiet(page);
    await tile(page, 'kube-scheduler').click();
    await showPane(page, 'Editor');
    await editor(page).fill(DEPLOYMENT);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await skipUntilQuiet(page);
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    const states = await podStates(page);
    assert.equal(Object.entries(states).filter(([k, v]) => k.startsWith('default/web-') && v === 'Running').length, 2);
    assert.equal(Object.entries(states).filter(([k, v]) => k.startsWith('default/hello-') && v === 'Pending').length, 3);
    const time = await simTime(page);

    await showPane(page, 'Scenarios');
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const field = page.getByLabel('Share link');
    await field.waitFor();
    const link = await field.inputValue();
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/#s=[A-Za-z0-9+$-]+$/);
    await page.getByText('Copied to the clipboard').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    await shot(page, 'shared');

    const fresh = await openApp(t);
    await fresh.goto(link);
    await fresh.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
    await fresh.getByRole('button', { name: 'Pause', exact: true }).click();
    const replayed = await simTime(fresh);
    assert.ok(replayed >= time && replayed - time < 3_000, `shared at ${time} ms, replayed to ${replayed} ms`);
    assert.deepEqual(await podStates(fresh), states);
    assert.equal(await tile(fresh, 'kube-scheduler').getAttribute('aria-pressed'), 'true');
    assert.deepEqual(await pressedStates(fresh), await pressedStates(page));
    await fresh.locator('[role="log"]').getByText('Replayed the shared scenario "my-session": 4 steps').waitFor();
    await shot(fresh, 'link-opened');

    // The scenario downloads as a file and opens again from it, through the same replay.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download', exact: true }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'my-session.yaml');
    const file = join(tmpdir(), `kubeglass-share-${process.pid}.yaml`);
    await download.saveAs(file);
    t.after(() => rmSync(file, { force: true }));
    const yaml = readFileSync(file, 'utf8');
    assert.match(yaml, /^apiVersion: kubeglass\.dev\/v1alpha1\nkind: Scenario\n/);
    assert.match(yaml, /- kubectl: create deployment web --image=nginx --replicas=2\n {4}at: /);
    assert.match(yaml, /- stop: kube-scheduler\n/);
    const other = await openApp(t);
    await loadApp(other);
    await showPane(other, 'Scenarios');
    await other.getByLabel('Open scenario file').setInputFiles(file);
    await other.locator('[role="log"]').getByText('# scenario "my-session" replayed').waitFor();
    await other.getByRole('button', { name: 'Pause', exact: true }).click();
    assert.deepEqual(await podStates(other), states);
  });

  test('hostile links and files show the reason over a working default cluster', async (t) => {
    const page = await openApp(t);
    await page.addInitScript(() => {
      if (location.protocol === 'http:') localStorage.setItem('kubeglass-manifest', 'kind: Keep\n');
    });
    const bad = [
      ['#s=%%%garbage', /bad %-escape/],
      [`#s=${'A'.repeat(300_000)}`, /a share link is at most 262144/],
      // lz-string of "apiVersion: v1\nkind: Pod\n": text, but no scenario.
      ['#s=IYBwlgagpgTgzmA9gOwFwAIBuBGAUAazGQBMMAFRY3IA', /"v1" is not a scenario's apiVersion/],
      ['#nothing-here', /no scenario in this link/],
    ];
    for (const [hash, reason] of bad) {
      // A new document each time (a change of the fragment alone does not reload the page).
      await page.goto('about:blank');
      await page.goto(`${appUrl()}${hash}`);
      await page.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
      const banner = page.getByRole('alert');
      await banner.getByText('This scenario could not be opened.').waitFor();
      assert.match(await banner.textContent(), reason);
      assert.equal(await editor(page).inputValue(), 'kind: Keep\n', 'the editor keeps its text');
    }
    await shot(page, 'hostile-link');
    // The default cluster works: a command runs and the banner goes away when dismissed.
    await page.getByLabel('Command').fill('kubectl get nodes');
    await page.getByLabel('Command').press('Enter');
    await page.locator('[role="log"]').getByText('node02').first().waitFor();
    await page.getByRole('button', { name: 'Dismiss' }).click();
    assert.equal(await page.getByRole('alert').count(), 0);

    // A file that is not a valid scenario says where.
    await showPane(page, 'Scenarios');
    await page.getByLabel('Open scenario file').setInputFiles({
      name: 'broken.yaml',
      mimeType: 'text/yaml',
      buffer: Buffer.from('apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec:\n  steps:\n  - wait: 3d\n'),
    });
    await page.getByRole('alert').getByText('broken.yaml:6:11: spec.steps[0].wait: time: unknown unit "d" in duration "3d"').waitFor();
  });

  test('the component menu crashes and cordons from the keyboard alone', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    await page.locator('#speed').selectOption('10');
    // Crash kube-scheduler: its static pod's container exits and the kubelet restarts it.
    await tile(page, 'kube-scheduler').focus();
    await page.keyboard.press('Shift+F10');
    const menu = page.getByRole('menu', { name: 'kube-scheduler actions' });
    await menu.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Stop');
    await shot(page, 'menu-open');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Crash (it is restarted)');
    await page.keyboard.press('Enter');
    assert.equal(await menu.count(), 0);
    await page.locator('[role="log"]').getByText('# crash kube-scheduler').waitFor();
    await page.waitForFunction(() => /kube-scheduler-controlplane/.test(
      [...document.querySelectorAll('svg.diagram g.pod')].map((c) => `${c.dataset.pod} ${c.dataset.status}`).join('\n'),
    ));
    await skipUntilQuiet(page);
    assert.equal(await tile(page, 'kube-scheduler').getAttribute('aria-pressed'), 'false', 'running again');
    await page.getByLabel('Command').fill('kubectl get pod -n kube-system kube-scheduler-controlplane');
    await page.getByLabel('Command').press('Enter');
    await page.locator('[role="log"]').getByText(/kube-scheduler-controlplane +1\/1 +Running +1 /).waitFor();

    // Cordon node02 with the keyboard: Tab to it, open its menu, move to Cordon.
    await tile(page, 'node02').focus();
    await page.keyboard.press('Shift+F10');
    await page.getByRole('menu', { name: 'node02 actions' }).waitFor();
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Cordon');
    await page.keyboard.press('Enter');
    await page.locator('[role="log"]').getByText('node/node02 cordoned').waitFor();
    await skipUntilQuiet(page);
    assert.match(await tile(page, 'node02').textContent(), /SchedulingDisabled/);
    // Escape closes a menu and gives focus back to its component.
    await tile(page, 'node01').focus();
    await page.keyboard.press('Shift+F10');
    await page.getByRole('menu', { name: 'node01 actions' }).waitFor();
    await page.keyboard.press('Escape');
    assert.equal(await page.getByRole('menu').count(), 0);
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'node01');
    await shot(page, 'menu-cordoned');
    // Both actions are recorded: they are in the scenario a download gives.
    await showPane(page, 'Scenarios');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download', exact: true }).click(),
    ]);
    const file = join(tmpdir(), `kubeglass-menu-${process.pid}.yaml`);
    await download.saveAs(file);
    t.after(() => rmSync(file, { force: true }));
    const yaml = readFileSync(file, 'utf8');
    assert.match(yaml, /- crash: kube-scheduler\n {4}at: /);
    assert.match(yaml, /- kubectl: cordon node02\n {4}at: /);
  });

  test('a gallery scenario loads, replays and explains what to watch', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    await showPane(page, 'Scenarios');
    await page.getByRole('button', { name: 'Scheduler down and the nodeName bypass' }).click();
    const explanation = page.getByRole('region', { name: 'Explanation' });
    await explanation.getByText(/spec\.nodeName/).first().waitFor();
    assert.equal(await tile(page, 'kube-scheduler').getAttribute('aria-pressed'), 'true');
    await page.waitForFunction(() => {
      const chip = (name) => document.querySelector(`svg.diagram g.pod[data-pod="default/${name}"]`)?.dataset.status;
      return chip('waiting') === 'Pending' && chip('pinned') === 'Running';
    });
    assert.equal(
      await page.getByRole('button', { name: 'Scheduler down and the nodeName bypass' }).getAttribute('aria-pressed'),
      'true',
    );
    await shot(page, 'gallery-scheduler-down');
  });
});
