// The page's accessibility as QA pass 16's second a11y walk found it (report2-a11y.md, its items
// in brackets): Hint and Start keep the focus [2], a refused start position is an error under
// its field, marked and described [2, 5], an empty "Open a game by id" says so [6], the round
// summary's table names and scopes its column headers [7].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serverAndBrowser, newPage, settle, gameId, SHOTS, refusedWith } from './harness.js';

const env = serverAndBrowser();

async function home(page, server) {
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
}

/** What has the focus: `tag#id`, or `body`. */
const focused = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return !a || a === document.body ? 'body' : `${a.tagName.toLowerCase()}${a.id ? `#${a.id}` : ''}`;
  });

test('Hint keeps the focus while the computer thinks and after the hint arrives', async () => {
  const { server, browser } = env;
  const { page, ctx } = await newPage(browser, server);
  await home(page, server);
  await page.selectOption('#level', { index: 0 });
  await page.click('#start');
  await gameId(page);
  await settle(page, 0);
  await page.focus('#hint');
  await page.keyboard.press('Enter');
  // While the engine thinks Hint is turned off (announced so) and still has the focus.
  assert.equal(await focused(page), 'button#hint', 'the focus right after Enter');
  await page.waitForFunction(() => /^(Hint|No hint)/.test(document.querySelector('#hint-text').textContent));
  assert.equal(await focused(page), 'button#hint', 'the focus once the hint is shown');
  assert.equal(await page.getAttribute('#hint', 'aria-disabled'), null, 'Hint is on again');
  // A second Enter asks again (the same hint): still on Hint.
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /^Hint/.test(document.querySelector('#hint-text').textContent));
  assert.equal(await focused(page), 'button#hint');
  page.checkClean();
  await ctx.close();
});

test('a refused start position is an error under its field: marked invalid, described by the error, focused, never covered', async () => {
  const { server, browser } = env;
  for (const [name, viewport, mobile] of [
    ['desktop', { width: 1280, height: 860 }, false],
    ['phone 360x640', { width: 360, height: 640 }, true],
    ['phone 390x844', { width: 390, height: 844 }, true],
  ]) {
    const { page, ctx } = await newPage(browser, server, { viewport, mobile });
    page.expectErrors(refusedWith(400));
    await home(page, server);
    await page.fill('#start-position', '0,0,0,0,0,1,1/1,0,0,0,0,0,54 0 0 S 1 walak-pussa');
    if (mobile) await page.locator('#start').tap();
    else {
      await page.focus('#start');
      await page.keyboard.press('Enter');
    }
    await page.waitForSelector('#start-position-error');
    const m = await page.evaluate(() => {
      const f = document.querySelector('#start-position');
      const e = document.querySelector('#start-position-error');
      const n = document.querySelector('#notice');
      const fb = f.getBoundingClientRect();
      const eb = e.getBoundingClientRect();
      const nb = n.getBoundingClientRect();
      const over = (a, b) => a.width && b.width && a.bottom > b.top && a.top < b.bottom && a.right > b.left && a.left < b.right;
      return {
        text: e.textContent,
        invalid: f.getAttribute('aria-invalid'),
        describedby: (f.getAttribute('aria-describedby') || '').split(' '),
        focus: document.activeElement.id,
        noticeShown: !n.hidden,
        noticeOverField: !n.hidden && over(nb, fb),
        errorUnderField: eb.top >= fb.bottom - 0.5 && eb.top - fb.bottom < 40,
        errorInView: eb.top >= 0 && eb.bottom <= innerHeight,
        fieldInView: fb.top >= 0 && fb.bottom <= innerHeight,
      };
    });
    assert.match(m.text, /^Cannot start from this position: position: seeds add up to/, name);
    assert.equal(m.invalid, 'true', `${name}: the field is marked invalid`);
    assert.equal(m.describedby[0], 'start-position-error', `${name}: the field is described by its error first`);
    assert.ok(m.describedby.includes('start-position-note'), `${name}: and still by its note`);
    assert.equal(m.focus, 'start-position', `${name}: the field to correct has the focus`);
    assert.equal(m.noticeShown, false, `${name}: no floating notice over the form`);
    assert.equal(m.noticeOverField, false, `${name}: nothing covers the field`);
    assert.ok(m.errorUnderField, `${name}: the error sits right under the field`);
    assert.ok(m.errorInView && m.fieldInView, `${name}: the field and its error are in sight`);
    assert.equal(await page.evaluate(() => location.hash), '', `${name}: no game opened`);
    if (name === 'phone 360x640') await page.screenshot({ path: join(SHOTS, 'a11y2-position-error-360x640.png') });
    // Correcting the field clears the error and its marks.
    await page.fill('#start-position', '');
    assert.equal(await page.locator('#start-position-error').count(), 0, `${name}: the error goes once the field is edited`);
    assert.equal(await page.getAttribute('#start-position', 'aria-invalid'), null);
    assert.equal(await page.getAttribute('#start-position', 'aria-describedby'), 'start-position-note');
    page.checkClean();
    await ctx.close();
  }
});

test('Start keeps the focus while the game is made', async () => {
  const { server, browser } = env;
  const { page, ctx } = await newPage(browser, server);
  await home(page, server);
  // The server's answer is held back, so the moment Start is turned off can be looked at.
  let release;
  const held = new Promise((r) => (release = r));
  await page.route('**/api/games', async (route) => {
    await held;
    await route.continue();
  });
  await page.focus('#start');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#start').getAttribute('aria-disabled') === 'true');
  assert.equal(await focused(page), 'button#start', 'Start has the focus while the server answers');
  // Pressed again meanwhile, nothing more is sent.
  await page.keyboard.press('Enter');
  release();
  await gameId(page);
  page.checkClean();
  await ctx.close();
});

test('"Open a game by id" with an empty field says what to do, under the field', async () => {
  const { server, browser } = env;
  for (const [name, viewport, mobile] of [
    ['desktop', { width: 1280, height: 860 }, false],
    ['phone 360x640', { width: 360, height: 640 }, true],
  ]) {
    const { page, ctx } = await newPage(browser, server, { viewport, mobile });
    page.expectErrors(refusedWith(400));
    await home(page, server);
    await page.focus('#open-id');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#open-id-error');
    assert.equal(await page.textContent('#open-id-error'), 'Type or paste a game id or link first.', name);
    assert.equal(await page.getAttribute('#open-id', 'aria-invalid'), 'true');
    assert.equal(await page.getAttribute('#open-id', 'aria-describedby'), 'open-id-error');
    assert.equal(await focused(page), 'input#open-id', `${name}: the field keeps the focus`);
    assert.equal(await page.evaluate(() => location.hash), '');
    // Blanks are no id either; typing one clears the error.
    await page.fill('#open-id', '   ');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#open-id-error');
    await page.fill('#open-id', 'k7m2q9xw4d');
    assert.equal(await page.locator('#open-id-error').count(), 0, `${name}: the error goes once the field is edited`);
    assert.equal(await page.getAttribute('#open-id', 'aria-invalid'), null);
    // The import form answers an empty record the same way.
    await page.click('#import-form button[type="submit"]');
    await page.waitForSelector('#import-text-error');
    assert.equal(await page.textContent('#import-text-error'), 'Paste a record or choose a file first.');
    assert.equal(await focused(page), 'textarea#import-text');
    // And a record the server refuses: its error under the field too, the field marked and focused.
    await page.fill('#import-text', '[Game "walak-pussa"]\n\n1. Z *\n');
    await page.click('#import-form button[type="submit"]');
    await page.waitForFunction(() => /^Cannot import the record: /.test(document.querySelector('#import-text-error')?.textContent || ''));
    assert.equal(await page.getAttribute('#import-text', 'aria-invalid'), 'true');
    assert.match(await page.getAttribute('#import-text', 'aria-describedby'), /^import-text-error\b/);
    assert.equal(await focused(page), 'textarea#import-text');
    assert.equal(await page.isVisible('#notice'), false, 'not in the floating notice');
    page.checkClean();
    await ctx.close();
  }
});

test('the round summary\'s table names every column header and scopes them', async () => {
  const { server, browser } = env;
  const { page, ctx } = await newPage(browser, server);
  await home(page, server);
  await page.check('input[name="mode"][value="match"]');
  await page.fill('#start-position', '0,0,0,0,0,1,1/1,0,0,0,0,0,0 27 26 S 1 walak-pussa');
  await page.click('#start');
  await gameId(page);
  await settle(page, 0);
  for (let i = 0; i < 12 && !(await page.evaluate(() => document.querySelector('#round-dialog').open)); i++) {
    const legal = await page.$$eval('svg.board .hole.legal', (gs) => gs.map((g) => g.dataset.hole));
    if (legal.length) await page.click(`svg.board .hole.legal[data-hole="${legal[0]}"]`);
    await page.waitForFunction(() => document.body.dataset.busy === '0' || document.querySelector('#round-dialog').open);
  }
  await page.waitForSelector('#round-dialog[open]');
  const table = page.locator('#round-dialog table').first();
  const cols = await table.getByRole('columnheader').allTextContents();
  assert.deepEqual(cols, ['Player', 'Swept at the end', 'Taken in the round']);
  assert.deepEqual(await table.locator('thead th').evaluateAll((ths) => ths.map((t) => t.getAttribute('scope'))), ['col', 'col', 'col']);
  const rows = await table.getByRole('rowheader').allTextContents();
  assert.equal(rows.length, 2, rows.join(' | '));
  page.checkClean();
  await ctx.close();
});

test('a rules section link moves the focus to its section, and Back returns to the scroll and the link followed', async () => {
  const { server, browser } = env;
  const { page, ctx } = await newPage(browser, server, { viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.url}/#/rules/walak-pussa`);
  await page.waitForSelector('#rules-body[data-game="walak-pussa"]');
  const where = () =>
    page.evaluate(() => {
      const a = document.activeElement;
      return { url: location.hash, y: Math.round(scrollY), tag: a.tagName.toLowerCase(), id: a.id, href: a.getAttribute('href'), text: a.textContent.trim().slice(0, 40) };
    });
  for (const mode of ['keyboard', 'mouse']) {
    // Reading far down: the decisions, opened, and their link to the sources.
    const sum = page.locator('#rules-body summary', { hasText: 'where the sources differ' });
    if (!(await sum.evaluate((s) => s.parentElement.open))) await sum.click();
    const link = page.locator('#rules-body details[open] a[href="#/rules/walak-pussa/sources"]').first();
    await link.scrollIntoViewIfNeeded();
    const before = await page.evaluate(() => Math.round(scrollY));
    assert.ok(before > 500, `${mode}: reading far down (${before})`);
    if (mode === 'keyboard') {
      await link.focus();
      await page.keyboard.press('Enter');
    } else await link.click();
    await page.waitForFunction(() => location.hash === '#/rules/walak-pussa/sources');
    await page.waitForFunction(() => document.activeElement.id === 'rules-sources');
    const at = await where();
    const head = await page.evaluate(() => document.querySelector('#rules-sources').getBoundingClientRect().top);
    // (Within a pixel: a folded section opened for the link can leave the heading a fraction above.)
    assert.ok(head > -1 && head < 100, `${mode}: the section's heading is at the top (${head})`);
    assert.equal(at.id, 'rules-sources', `${mode}: the focus on the section's heading`);
    // The next Tab goes on from the section, not back up to the link.
    await page.keyboard.press('Tab');
    const next = await page.evaluate(() => document.activeElement.getBoundingClientRect().top + scrollY);
    const sectionY = await page.evaluate(() => document.querySelector('#rules-sources').getBoundingClientRect().top + scrollY);
    assert.ok(next >= sectionY, `${mode}: Tab goes on from the section (${next} >= ${sectionY})`);
    // Back: where the player was reading, the focus on the link followed.
    await page.goBack();
    await page.waitForFunction(() => location.hash === '#/rules/walak-pussa');
    await page.waitForFunction(() => document.activeElement.tagName === 'A');
    const back = await where();
    assert.ok(Math.abs(back.y - before) <= 2, `${mode}: Back returns to scrollY ${before} (${back.y})`);
    assert.equal(back.href, '#/rules/walak-pussa/sources', `${mode}: the focus on the link followed (${back.tag} ${back.text})`);
    const inView = await link.evaluate((a) => {
      const r = a.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= innerHeight;
    });
    assert.ok(inView, `${mode}: the link is in sight`);
  }
  // A page opened (not a section link) still starts at its top, on its heading.
  await page.click('#rules-tabs a[data-game="raja-pasu"]');
  await page.waitForSelector('#rules-body[data-game="raja-pasu"]');
  const fresh = await where();
  assert.equal(fresh.y, 0);
  assert.equal(fresh.tag, 'h1');
  page.checkClean();
  await ctx.close();
});
