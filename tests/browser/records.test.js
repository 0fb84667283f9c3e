// Export and import of game records, the saved-games list and the rules pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  serverAndBrowser, newPage, settle, gameId, assertShowsServer, closeDialog, startFromForm, SHOTS,
  refusedWith,
} from './harness.js';

// One `pussa serve` and one Chromium for the file's tests.
const env = serverAndBrowser();

test('export a record, import it back, find both in the saved games', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'off' });
  page.expectErrors(refusedWith(400)); // the broken record, refused on purpose
  const id = await startFromForm(page, server, { game: 'pasu-pondi-6', opponent: 'hotseat' });
  let st = await assertShowsServer(page, server, id, 'start');
  for (let k = 0; k < 4 && !st.match_over; k++) {
    await closeDialog(page);
    await page.click(`svg.board .hole[data-hole="${st.legal[0]}"]`);
    await settle(page, st.ply + 1);
    st = await assertShowsServer(page, server, id, `ply ${st.ply + 1}`);
  }
  await closeDialog(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const path = await download.path();
  const record = await readFile(path, 'utf8');
  assert.equal(record, await (await fetch(`${server.url}/api/games/${id}/record`)).text());
  for (const m of st.moves) assert.ok(record.includes(m.move), `record has move ${m.move}`);

  // Import it through the form (uploading the file): a new game with the same moves and board.
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.setInputFiles('#import-file', { name: `pussa-${id}.txt`, mimeType: 'text/plain', buffer: Buffer.from(record) });
  await page.waitForFunction((r) => document.querySelector('#import-text').value === r, record);
  await page.click('#import-form button[type="submit"]');
  await page.waitForFunction((old) => location.hash.startsWith('#/game/') && !location.hash.endsWith(old), id);
  const id2 = await gameId(page);
  const st2 = await assertShowsServer(page, server, id2, 'imported');
  assert.deepEqual(st2.moves.map((m) => m.move), st.moves.map((m) => m.move));
  assert.deepEqual(st2.board, st.board);

  // A broken record is refused with the server's message, under the field.
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  // The start page lists the games in progress this browser plays in.
  await page.waitForSelector(`#continue-list a[href="#/game/${id}"]`);
  await page.waitForSelector(`#continue-list a[href="#/game/${id2}"]`);
  await page.fill('#import-text', 'this is not a record');
  await page.click('#import-form button[type="submit"]');
  await page.waitForSelector('#import-text-error');
  assert.match(await page.textContent('#import-text-error'), /^Cannot import the record: record: /);

  // Saved games list both, and opens them.
  await page.goto(`${server.url}/#/games`);
  await page.waitForSelector(`#games-table a[href="#/game/${id}"]`);
  await page.waitForSelector(`#games-table a[href="#/game/${id2}"]`);
  await page.screenshot({ path: join(SHOTS, 'saved-games.png') });
  await page.click(`#games-table a[href="#/game/${id}"]`);
  await assertShowsServer(page, server, id, 'reopened');
  page.checkClean();
});

test('rules pages render the server\'s markdown: headings, lists, tables', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  for (const g of ['walak-pussa', 'raja-pasu', 'pasu-pondi', 'pasu-pondi-6']) {
    await page.goto(`${server.url}/#/rules/${g}`);
    await page.waitForFunction(() => document.querySelector('#rules-body').children.length > 2);
    const md = await (await fetch(`${server.url}/api/rules/${g}`)).text();
    const counts = await page.evaluate(() => ({
      // The page's own introduction above the text has a heading of its own.
      headings: document.querySelectorAll('#rules-body :is(h2, h3, h4, h5, h6):not(.intro *)').length,
      tables: document.querySelectorAll('#rules-body table').length,
      raw: /(^|\n)#+ |\|---/.test(document.querySelector('#rules-body').textContent),
    }));
    const mdHeadings = md.split('\n').filter((l) => /^#{1,5} /.test(l)).length;
    assert.equal(counts.headings, mdHeadings, `${g}: every heading rendered`);
    if (md.includes('|---') || md.includes('| ---')) assert.ok(counts.tables > 0, `${g}: tables rendered`);
    assert.equal(counts.raw, false, `${g}: no raw markdown left`);
    if (g === 'raja-pasu') await page.screenshot({ path: join(SHOTS, 'rules-raja-pasu.png'), fullPage: true });
    // A link to a section scrolls within the rules page (it does not leave it).
    const anchor = page.locator('#rules-body a[data-anchor]').first();
    if (await anchor.count()) {
      await anchor.click();
      assert.equal(await page.isVisible('#view-rules'), true);
      assert.ok(page.url().includes(`#/rules/${g}`));
    }
  }
  page.checkClean();
});
