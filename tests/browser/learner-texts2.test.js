// The page's texts for a newcomer, second pass (QA pass 18, second learner report; its items in
// brackets): the glossary readable on a phone [1]; the Rules saying endless moves happen in every
// game [2]; Help and the glossary naming the endless hole's mark as the Rules do [3]; a start at a
// position whose moves take seconds to prove saying so at once [4]; a game against the computer
// naming the players one way at a round's end [5].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverAndBrowser, newPage, gameId, settle, SHOTS } from './harness.js';

const env = serverAndBrowser();

/** Fills the New game form (single game, `opponent`, South's seat) with `position`; not sent. */
async function fillForm(page, server, position, opponent = 'hotseat') {
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.check('input[name="game"][value="walak-pussa"]');
  await page.check('input[name="mode"][value="single"]');
  await page.check(`input[name="opponent"][value="${opponent}"]`);
  if (opponent !== 'hotseat') await page.selectOption('select[name="seat"]', 'S');
  await page.fill('#start-position', position);
}

test('on a phone the glossary shows each term above its explanation, at the full width, nothing cut [1]', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { viewport: { width: 360, height: 740 }, mobile: true });
  await fillForm(page, server, '');
  await page.click('#start');
  await gameId(page);
  await settle(page, 0);
  const d = page.locator('details.glossary');
  await d.evaluate((e) => (e.open = true));
  await d.scrollIntoViewIfNeeded();
  const boxes = await d.evaluate((e) => ({
    width: document.documentElement.clientWidth,
    list: e.querySelector('dl').getBoundingClientRect().width,
    rows: [...e.querySelectorAll('dt')].map((dt) => {
      const dd = dt.nextElementSibling;
      const [a, b] = [dt.getBoundingClientRect(), dd.getBoundingClientRect()];
      return { term: dt.textContent, dt: { left: a.left, right: a.right, bottom: a.bottom }, dd: { left: b.left, right: b.right, top: b.top, scroll: dd.scrollWidth, client: dd.clientWidth } };
    }),
  }));
  await d.screenshot({ path: join(SHOTS, 'glossary-phone.png') });
  for (const r of boxes.rows) {
    // The explanation stands under its term and takes the list's width, inside the screen.
    assert.ok(r.dd.top >= r.dt.bottom - 1, `${r.term}: explanation under the term`);
    assert.ok(r.dd.right - r.dd.left >= boxes.list - 1, `${r.term}: explanation ${r.dd.right - r.dd.left} px of ${boxes.list}`);
    assert.ok(r.dd.right <= boxes.width && r.dt.right <= boxes.width, `${r.term}: inside the screen`);
    assert.ok(r.dd.scroll <= r.dd.client, `${r.term}: no word cut`);
  }
  // On a wide screen the terms keep their column, but a long term wraps rather than taking it all.
  await page.setViewportSize({ width: 1280, height: 860 });
  const wide = await d.evaluate((e) =>
    [...e.querySelectorAll('dt')].map((dt) => [dt.getBoundingClientRect(), dt.nextElementSibling.getBoundingClientRect()]).map(([a, b]) => ({ term: a.width, dd: b.width, beside: b.left > a.right })),
  );
  for (const w of wide) assert.ok(w.beside && w.dd > w.term, JSON.stringify(w));
  page.checkClean();
  await page.context().close();
});

test('the Rules say an endless move can happen in every game, not only in Walak-pussa [2]', async () => {
  const rules = await readFile(new URL('../../docs/rules.md', import.meta.url), 'utf8');
  const at = rules.indexOf('### Endless moves');
  const section = rules.slice(at, rules.indexOf('#### How pussa finds them', at)).replace(/\s+/g, ' ');
  assert.doesNotMatch(section, /really happens in Walak-pussa/);
  assert.match(section, /This can happen in every game: in Walak-pussa, and in Raja Pasu and Pasu Pondi too/);
});

test('Help and the glossary say the endless hole has only a thin dashed ring, on your turn, as the Rules note does [3]', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await page.goto(`${server.url}/#/help`);
  await page.waitForSelector('body[data-ready="1"]');
  const text = await page.evaluate(() => document.body.textContent.replace(/\s+/g, ' '));
  // No "not ringed" next to "a thin dashed ring" in a sentence that reads as a rule for every hole.
  assert.doesNotMatch(text, /not ringed \((it has )?a thin dashed ring\)/);
  const help = await page.$eval('#view-help', (e) => e.textContent.replace(/\s+/g, ' '));
  assert.match(help, /On your turn, one of your holes that holds seeds but has only a thin dashed ring, not the full ring, would sow for ever/);
  const glossary = await page.$eval('.glossary', (e) => e.textContent.replace(/\s+/g, ' '));
  assert.match(glossary, /on your turn, one of your holes that holds seeds but has only a thin dashed ring, not the full ring, would sow for ever/);
  page.checkClean();
  await page.context().close();
});

/** The position the Rules name: North's b is endless, with a cycle of 452,592,939 laps. */
const LONG_CYCLE = '2,3,4,5,6,10,2/3,1,2,8,3,4,3 0 0 N 1 walak-pussa';

test('a start at a position whose moves take seconds to prove says at once that it checks them, then starts [4]', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await fillForm(page, server, LONG_CYCLE);
  assert.equal(await page.textContent('#start-status'), '', 'nothing said before Start');
  await page.click('#start');
  // At once (the server takes seconds to prove b endless): the status says what is going on,
  // Start stays off, and the status is a live region a screen reader reads out.
  const t0 = Date.now();
  const first = await page.evaluate(() => ({
    status: document.querySelector('#start-status').textContent,
    role: document.querySelector('#start-status').getAttribute('role'),
    off: document.querySelector('#start').getAttribute('aria-disabled'),
    hash: location.hash,
  }));
  assert.ok(Date.now() - t0 < 1000);
  assert.match(first.status, /^Checking the moves of this position: which would sow for ever/);
  assert.equal(first.role, 'status');
  assert.equal(first.off, 'true');
  assert.doesNotMatch(first.hash, /game/, 'the server has not answered yet');
  await page.screenshot({ path: join(SHOTS, 'start-checking.png') });
  // Then the game starts, b marked endless, and the form's status is cleared.
  const id = await gameId(page);
  await settle(page, 0, 120000);
  assert.equal((await server.get(`/api/games/${id}`)).legal.join(), 'a,c,d,e,f,g');
  assert.equal(await page.getAttribute('svg.board .hole[data-hole="b"]', 'aria-label'), 'Hole b (North), 1 seed, not playable: it would sow for ever');
  assert.equal(await page.textContent('#start-status'), '');
  assert.equal(await page.getAttribute('#start', 'aria-disabled'), null);
  page.checkClean();
  await page.context().close();
});

/** Walak-pussa, North (the computer) to move: its only move f takes B and leaves South stuck. */
const COMPUTER_STUCK = '0,1,0,0,0,0,0/0,0,0,0,0,1,0 27 27 N 1 walak-pussa';

test('against the computer, the round\'s end names the players "you" and "Computer" in the caption, the summary and the dialog [5]', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'fast' });
  await fillForm(page, server, COMPUTER_STUCK, 'computer');
  await page.evaluate(() => {
    window.captions = [];
    window.heard = [];
    const keep = (sel, list) =>
      new MutationObserver(() => {
        const t = document.querySelector(sel).textContent;
        if (t && list[list.length - 1] !== t) list.push(t);
      }).observe(document.querySelector(sel), { childList: true, characterData: true, subtree: true });
    keep('#caption', window.captions);
    keep('#announce', window.heard);
  });
  await page.click('#start');
  await gameId(page);
  await page.waitForSelector('#round-dialog[open]', { timeout: 60000 });
  const { captions, heard } = await page.evaluate(() => ({ captions: window.captions, heard: window.heard }));
  const all = [...captions, ...heard].join(' | ');
  assert.ok(captions.includes('Round over (you cannot move): Computer takes the 1 seed left on the board'), all);
  const said = 'Computer played f (1 lap; took 1: 1 from B). Round over: you cannot move; Computer takes the 1 seed left on the board.';
  assert.equal(await page.textContent('#caption'), said);
  assert.ok(heard.some((t) => t.startsWith(said)), all);
  assert.doesNotMatch(all, /South|North/, 'the sides are not named in a game against the computer');
  const body = (await page.textContent('#round-dialog-body')).replace(/\s+/g, ' ');
  assert.match(body, /^The game ended: you cannot move\. Computer takes the 1 seed left on the board\./);
  assert.match(body, /You \(South\)\s*0\s*27/);
  assert.match(body, /Computer \(North\)\s*1\s*29/);
  page.checkClean();
  await page.context().close();
});
