// Browser tests of the page as a whole: it fits a 1280×720 window (the diagram, the terminal and the dock's
// panes without scrolling the page, in both themes), and Ctrl+C in the terminal stops a `-w` watch and is
// recorded, so that a share link replays it. Against dist/ from `trunk build --release`:
// node --test tests/browser/web.test.mjs
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appUrl, loadApp, openApp, run, shot as screenshot, showPane, skipUntilQuiet, useBrowser,
} from './harness.mjs';

useBrowser();

const shot = (page, name) => screenshot(page, `web-${name}`);
const PANES = ['Flow', 'Editor', 'Inspect', 'Scenarios', 'Nodes', 'Log'];

/** How far the page itself scrolls: 0 and 0 when it fits the window. */
const overflow = (page) => page.evaluate(() => {
  const root = document.scrollingElement;
  return { x: root.scrollWidth - window.innerWidth, y: root.scrollHeight - window.innerHeight };
});

/** The element's box, and whether it lies inside the window. */
async function placed(locator) {
  const box = await locator.boundingBox();
  assert.ok(box, 'the element is shown');
  const size = locator.page().viewportSize();
  return {
    ...box,
    inside: box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width + 0.5 && box.y + box.height <= size.height + 0.5,
  };
}

/** The terminal's output lines as text. */
const termLines = (page) => page.locator('[role="log"] .term-line').allTextContents();

describe('the page fits the window', () => {
  for (const scheme of ['light', 'dark']) {
    test(`at 1280×720 (${scheme}) the diagram, the terminal and every pane show without scrolling the page`, async (t) => {
      const page = await openApp(t, { colorScheme: scheme });
      await loadApp(page);
      await run(page, 'kubectl create deployment web --image=nginx --replicas=2', 'deployment.apps/web created');
      assert.deepEqual(await overflow(page), { x: 0, y: 0 });
      const diagram = await placed(page.locator('svg.diagram'));
      assert.ok(diagram.inside, `the diagram is in the window: ${JSON.stringify(diagram)}`);
      assert.ok(diagram.width >= 700, `the diagram takes most of the width: ${diagram.width}`);
      assert.ok((await placed(page.getByLabel('Command'))).inside, 'the prompt is in the window');
      assert.ok((await placed(page.locator('[role="log"]'))).inside, 'the terminal output is in the window');
      for (const name of PANES) {
        await showPane(page, name);
        const pane = page.getByRole('tabpanel', { name });
        assert.ok((await placed(pane)).inside, `the ${name} pane is in the window`);
        assert.equal(await page.locator('.dock-pane:visible').count(), 1, 'one pane at a time');
        assert.deepEqual(await overflow(page), { x: 0, y: 0 }, `with ${name} shown`);
      }
      // A long manifest scrolls inside the editor; Apply and its output stay in the window.
      await showPane(page, 'Editor');
      const long = Array.from({ length: 6 }, (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\ndata:\n  a: "1"\n`)
        .join('---\n');
      await page.getByLabel('Manifest', { exact: true }).fill(long);
      await page.getByRole('button', { name: 'Apply', exact: true }).click();
      await page.getByRole('status', { name: 'Apply output' }).getByText('configmap/c5 created').waitFor();
      assert.ok((await placed(page.getByRole('button', { name: 'Apply', exact: true }))).inside);
      assert.ok((await placed(page.getByRole('status', { name: 'Apply output' }))).inside);
      assert.deepEqual(await overflow(page), { x: 0, y: 0 });
      await shot(page, `manifest-${scheme}`);
      await showPane(page, 'Flow');
      await page.locator('ol[aria-label="Data flow"] li').first().waitFor();
      await shot(page, `fit-${scheme}`);
    });
  }

  test('the dock\'s tabs work from the keyboard, and opening a pod shows the Inspect pane', async (t) => {
    const page = await openApp(t);
    await loadApp(page);
    const selected = () => page.locator('.dock-tabs [role="tab"][aria-selected="true"]').textContent();
    assert.equal(await selected(), 'Flow');
    await page.getByRole('tab', { name: 'Flow', exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await selected(), 'Editor');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Editor');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await selected(), 'Log');
    await page.locator('svg.diagram g.pod[data-pod="kube-system/etcd-controlplane"]').click();
    assert.equal(await selected(), 'Inspect');
    await page.locator('.object[data-object="pods/kube-system/etcd-controlplane"]').waitFor();
  });

  test('a larger window gives the diagram the room, still without scrolling the page', async (t) => {
    const page = await openApp(t, { viewport: { width: 1920, height: 1080 } });
    await loadApp(page);
    assert.deepEqual(await overflow(page), { x: 0, y: 0 });
    const diagram = await placed(page.locator('svg.diagram'));
    assert.ok(diagram.inside && diagram.width >= 1100, JSON.stringify(diagram));
    await shot(page, 'fit-1920');
  });

  test('a narrow window stacks the panels and the page scrolls instead', async (t) => {
    const page = await openApp(t, { viewport: { width: 800, height: 900 } });
    await loadApp(page);
    const diagram = await placed(page.locator('svg.diagram'));
    const prompt = await page.getByLabel('Command').boundingBox();
    assert.ok(prompt.y > diagram.y + diagram.height - 1, 'the terminal comes under the diagram');
    assert.equal((await overflow(page)).x, 0, 'nothing sticks out sideways');
  });
});

describe('Ctrl+C in the terminal', () => {
  test('stops a -w watch, and a share link replays the stop', async (t) => {
    const page = await openApp(t, { permissions: ['clipboard-read', 'clipboard-write'] });
    await loadApp(page);
    await skipUntilQuiet(page);
    // With no pods yet, the watch prints nothing until the first one comes.
    await run(page, 'kubectl get pods -w');
    await run(page, 'kubectl run before --image=nginx', 'pod/before created');
    await page.waitForFunction(() => [...document.querySelectorAll('[role="log"] .term-line')]
      .some((l) => /^before +0\/1 +Pending/.test(l.textContent)));
    await page.getByLabel('Command').press('Control+c');
    await page.locator('[role="log"]').getByText('^C', { exact: true }).waitFor();
    await run(page, 'kubectl run after --image=nginx', 'pod/after created');
    await skipUntilQuiet(page);
    const watchRow = (name) => new RegExp(`^${name} +\\d/\\d +`);
    assert.ok(!(await termLines(page)).some((l) => watchRow('after').test(l)), 'the stopped watch printed no more');
    await shot(page, 'ctrl-c');

    await showPane(page, 'Scenarios');
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    const link = await page.getByLabel('Share link').inputValue();
    const fresh = await openApp(t);
    await fresh.goto(link);
    await fresh.locator('[role="button"][aria-label="kube-apiserver"]').waitFor();
    const replayed = await termLines(fresh);
    const caret = replayed.indexOf('^C');
    assert.ok(caret > 0, `the replay shows ^C: ${replayed.join('\n')}`);
    assert.ok(replayed.slice(0, caret).some((l) => watchRow('before').test(l)), 'the watch streamed before it');
    assert.ok(replayed.indexOf('$ kubectl run after --image=nginx') > caret);
    assert.ok(!replayed.some((l) => watchRow('after').test(l)), 'the replayed watch was stopped too');
    // Nothing runs in the replayed page: a new pod prints no watch row there either.
    await run(fresh, 'kubectl run later --image=nginx', 'pod/later created');
    await skipUntilQuiet(fresh);
    assert.ok(!(await termLines(fresh)).some((l) => watchRow('later').test(l)));
    await shot(fresh, 'ctrl-c-replayed');
  });
});
