// The page's presentation as QA pass 12 found it (its items in brackets): the turn line's words
// for watchers and on one screen [11], a refused key's reason [16], the last-move mark unlike the
// focus ring and the focus left alone when the board turns [17], the scoreboard's "This round"
// [18], the game cards aligned [19], the rules page for players and the help page [21].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serverAndBrowser, newPage, settle, gameId, startFromForm, SHOTS } from './harness.js';

const env = serverAndBrowser();

test('one screen: the turn line names the side once, a refused key says why, the focus stays when the board turns', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await startFromForm(page, server, { game: 'walak-pussa', opponent: 'hotseat' });
  await settle(page, 0);
  assert.equal((await page.textContent('#turn')).trim(), 'South to move (holes A–G)');
  // The scoreboard's column is not read as a round number.
  const heads = await page.$$eval('#scoreboard thead th', (ths) => ths.map((t) => t.textContent));
  assert.ok(heads.includes('This round'), heads.join(','));
  assert.ok(!heads.includes('Round'));
  await page.check('#turn-board');
  await page.keyboard.press('a');
  await settle(page, 1);
  // The last move is marked in amber, not in the focus's blue.
  const stroke = await page.$eval('svg.board .hole.last .ring', (r) => getComputedStyle(r).stroke);
  assert.doesNotMatch(stroke, /rgb\(29, 95, 191\)|rgb\(106, 143, 208\)/, stroke);
  // The board turned to North; the focus did not jump to one of North's holes.
  const focused = await page.evaluate(() => document.activeElement?.dataset?.hole || null);
  assert.ok(!focused || focused === focused.toUpperCase(), `the focus stayed off North's row (${focused})`);
  // After A, North's a, b and g are empty: the turn line names the holes North can play.
  assert.equal((await page.textContent('#turn')).trim(), 'North to move (holes c–f)');
  // A key on an empty hole says so.
  const st = await server.get(`/api/games/${await gameId(page)}`);
  const empty = 'abcdefg'.split('').find((l, k) => st.board[7 + k] === 0);
  if (empty) {
    await page.keyboard.press(empty);
    assert.equal(await page.textContent('#caption'), `${empty} is empty.`);
  }
  await page.screenshot({ path: join(SHOTS, 'hotseat-turned.png') });
  page.checkClean();
  await page.context().close();
});

test('a watcher reads "South to move", without the side twice', async () => {
  const { server, browser } = env;
  const r = await server.post('/api/games', { game: 'raja-pasu', mode: 'single', first: 'S', seat: 'S', opponent: { kind: 'online' } });
  const invite = r.invite.token;
  await server.post(`/api/games/${r.id}/join`, { invite });
  const { page } = await newPage(browser, server);
  await page.goto(`${server.url}/#/game/${r.id}`);
  await settle(page, 0);
  const turn = (await page.textContent('#turn')).trim();
  // Nobody has the game open here: "South to move, but away…".
  assert.match(turn, /^South to move[.,]/);
  assert.doesNotMatch(turn, /\(South\)/);
  page.checkClean();
  await page.context().close();
});

test("the game cards' titles line up", async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  const ys = await page.$$eval('#game-choices input', (is) => is.map((i) => Math.round(i.getBoundingClientRect().top)));
  assert.equal(new Set(ys).size, 1, `radios at ${ys.join(', ')}`);
  // Each radio sits level with its card's title.
  const off = await page.$$eval('#game-choices label', (ls) => ls.map((l) => {
    const i = l.querySelector('input').getBoundingClientRect();
    const r = document.createRange();
    r.selectNode([...l.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim()));
    const t = r.getBoundingClientRect();
    return Math.abs(i.top + i.height / 2 - (t.top + t.height / 2));
  }));
  assert.ok(Math.max(...off) <= 2, `radio and title level (${off.join(', ')})`);
  page.checkClean();
  await page.context().close();
});

test("the rules page: a player's introduction with a board, no command lines, a narrow measure, links that Back returns from", async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.goto(`${server.url}/#/rules/raja-pasu`);
  await page.waitForSelector('#rules-body .intro svg.diagram');
  assert.match(await page.textContent('#rules-body .intro h3'), /Raja Pasu in short/);
  const text = await page.locator('#rules-body').innerText();
  assert.doesNotMatch(text, /pussa rules GAME/);
  // One game's page: its own title, and nothing a player in the browser cannot reach (files,
  // commands) or that points at a section the page does not have.
  assert.match(await page.textContent('#rules-body h2'), /^The rules of Raja Pasu$/);
  assert.doesNotMatch(text, /notation\.md|docs\/|pussa explain|--max-rounds|On the command line|lap by lap above|three games/);
  assert.doesNotMatch(text, /Walak-pussa A\b|Pasu Pondi \(5 seeds\) A\b/);
  assert.match(text, /Raja Pasu G\b/);
  // The capture as the contract states it: the landing-hole exception, in the introduction
  // and (Walak-pussa) for every link of the chain, as the glossary says it.
  const intro = await page.textContent('#rules-body .intro');
  assert.match(intro, /your move ends, and you take the hole after it if it holds seeds and is not the hole where your last seed fell/);
  await page.goto(`${server.url}/#/rules/walak-pussa`);
  await page.waitForFunction(() => /Walak-pussa in short/.test(document.querySelector('#rules-body .intro h3')?.textContent || ''));
  const chain = await page.textContent('#rules-body .intro');
  assert.match(chain, /the one after it holds seeds and is not the hole where your last seed fell, you take those too/);
  const necklace = await page.$eval('.glossary', (d) => d.textContent);
  assert.match(necklace, /Necklace \(chain\)Walak-pussa: after a capture, while the next hole is empty and the one after it holds seeds and is not the hole where the last seed fell/);
  await page.goto(`${server.url}/#/rules/raja-pasu`);
  await page.waitForSelector('#rules-body .intro h3');
  // The research notes are folded away.
  assert.equal(await page.locator('#rules-decisions-and-why').isVisible(), false);
  assert.doesNotMatch(await page.locator('#rules-body').innerText(), /Brent|OpenSpiel|Ludii/);
  // Lines of a comfortable length.
  const widths = await page.$$eval('#rules-body p', (ps) => ps.map((p) => p.getBoundingClientRect().width));
  assert.ok(Math.max(...widths) <= 700, `paragraphs at most 700 px wide (${Math.max(...widths)})`);
  // An in-page link adds a history entry: Back returns to the rules, not off the site.
  await page.click('#rules-body a[href$="/matches"]');
  await page.waitForFunction(() => location.hash === '#/rules/raja-pasu/matches');
  const y = await page.evaluate(() => window.scrollY);
  assert.ok(y > 100, 'scrolled to the section');
  await page.goBack();
  await page.waitForFunction(() => location.hash === '#/rules/raja-pasu');
  await page.screenshot({ path: join(SHOTS, 'rules-intro.png') });
  // The help page for playing online.
  await page.click('a[data-nav="help"]');
  await page.waitForSelector('#view-help:not([hidden])');
  assert.match(await page.textContent('#view-help'), /invite link/);
  assert.match(await page.textContent('#view-help'), /Resign/);
  page.checkClean();
  await page.context().close();
});
