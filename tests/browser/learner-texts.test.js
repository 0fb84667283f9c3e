// The page's texts for a newcomer who learns the games from pussa alone (QA pass 18, learner
// report; its items in brackets): an endless move shown on the board and refused with its reason
// [1]; the Rules' section on endless moves for a player of the page [2]; the "in short" summaries
// defining what they use and saying how a round ends [3]; the diagram's loop showing each row's
// direction [4]; the round's end saying who takes the seeds left on the board [5].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serverAndBrowser, newPage, gameId, settle, closeDialog, SHOTS } from './harness.js';

const env = serverAndBrowser();

/** Starts a game on one screen from `position` through the New game form; its id. */
async function startAt(page, server, position, game = 'walak-pussa') {
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.check(`input[name="game"][value="${game}"]`);
  await page.check('input[name="mode"][value="single"]');
  await page.check('input[name="opponent"][value="hotseat"]');
  await page.fill('#start-position', position);
  await page.click('#start');
  const id = await gameId(page);
  await settle(page, 0);
  return id;
}

/** Walak-pussa, South to move: A (1 seed) would sow for ever; C, D and F are legal. */
const ENDLESS = '1,0,2,1,0,1,0/1,0,1,0,1,0,1 23 24 S 1 walak-pussa';

test('a hole whose move would sow for ever is marked on the board and refused with the reason [1]', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  const id = await startAt(page, server, ENDLESS);
  // The server agrees: A holds a seed, is not legal, and playing it is refused as endless.
  const st = await server.get(`/api/games/${id}`);
  assert.deepEqual(st.legal, ['C', 'D', 'F']);
  const refused = await fetch(`${server.url}/api/games/${id}/moves`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ move: 'A', token: JSON.parse(await page.evaluate(() => localStorage.getItem('pussa.seats')))[id].token }),
  });
  assert.equal(refused.status, 422);
  assert.match((await refused.json()).error || '', /endless/);
  // The turn line names the holes that can be played, not "A–G".
  assert.equal((await page.textContent('#turn')).trim(), 'South to move (holes C, D, F)');
  // A is not ringed; it is marked, its label and its tooltip say why.
  const a = await page.$eval('svg.board .hole[data-hole="A"]', (g) => ({
    cls: [...g.classList],
    label: g.getAttribute('aria-label'),
    title: g.querySelector('title')?.textContent || '',
  }));
  assert.ok(!a.cls.includes('legal') && a.cls.includes('endless'), a.cls.join(' '));
  assert.equal(a.label, 'Hole A (South), 1 seed, not playable: it would sow for ever');
  assert.equal(a.title, 'A would sow for ever: not a legal move');
  // A legal hole and an empty one are not marked so.
  for (const l of ['C', 'B']) {
    const other = await page.$eval(`svg.board .hole[data-hole="${l}"]`, (g) => ({ cls: [...g.classList], title: g.querySelector('title') }));
    assert.ok(!other.cls.includes('endless') && other.title === null, `${l}: ${other.cls.join(' ')}`);
  }
  await page.screenshot({ path: join(SHOTS, 'endless-hole.png') });
  // A click and the key say why, naming the reason as the rules do.
  const why = 'A would sow for ever: the same board comes back with the same hole about to be lifted, so it is not a legal move.';
  await page.click('svg.board .hole[data-hole="A"]');
  assert.equal(await page.textContent('#caption'), why);
  await page.keyboard.press('a');
  assert.equal(await page.textContent('#caption'), why);
  assert.equal((await server.get(`/api/games/${id}`)).ply, 0, 'nothing was played');
  // Once a legal move is played, the marks go with the position.
  await page.click('svg.board .hole[data-hole="C"]');
  await settle(page, 1);
  await closeDialog(page);
  const after = await server.get(`/api/games/${id}`);
  const marked = await page.$$eval('svg.board .hole.endless', (gs) => gs.map((g) => g.dataset.hole));
  const side = after.to_move === 'S' ? 0 : 1;
  const expected = after.round_over
    ? []
    : [...'ABCDEFGabcdefg'.slice(side * 7, side * 7 + 7)].filter((l, k) => after.board[side * 7 + k] > 0 && !after.legal.includes(l));
  assert.deepEqual(marked, expected);
  page.checkClean();
  await page.context().close();
});

test("the rules' endless moves: what a player sees on the page, how pussa finds them folded away [2]", async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  for (const [g, takes] of [
    ['walak-pussa', /the other player, who just moved, takes them all/],
    ['raja-pasu', /the other player, who just moved, takes them all/],
    ['pasu-pondi', /each player takes the seeds in their own row/],
  ]) {
    await page.goto(`${server.url}/#/rules/${g}`);
    await page.waitForSelector('#rules-endless-on-page');
    const onPage = page.locator('#rules-endless-on-page');
    assert.equal(await onPage.isVisible(), true, `${g}: the page's words are in view`);
    const text = await onPage.textContent();
    assert.match(text, /would sow for ever cannot be played: it has only a thin dashed ring, not the full ring of a playable hole,/);
    assert.doesNotMatch(text, /not ringed/, `${g}: no "not ringed" beside the thin dashed ring`);
    assert.match(text, /refused with the reason/);
    assert.match(text, /the turn line names only the holes you can play/);
    assert.match(text, /the round ends; its summary says which holes “would sow for ever”/);
    assert.match(text, takes, `${g}: who takes the seeds left`);
    // The implementation (Brent's method, cycle lengths, timings) is folded, for the curious.
    const shown = await page.locator('#rules-body').innerText();
    assert.doesNotMatch(shown, /Brent|452,592,939|126,000|11 ms/, `${g}: no implementation in view`);
    const fold = page.locator('#rules-body details.fold', { hasText: 'For the curious: how pussa finds endless moves' });
    assert.equal(await fold.count(), 1, `${g}: the fold`);
    assert.match(await fold.textContent(), /Brent/);
    assert.equal(await fold.evaluate((d) => d.open), false);
  }
  page.checkClean();
  await page.context().close();
});

test('the "in short" summaries define their words and say how a round ends [3]', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  const fours = /Whenever a seed makes a hole hold exactly four, the owner of the row the hole is in takes those four at once \(a “four”\)/;
  const stuck = /A round ends when the player to move has no move: the other player, the one who just moved, takes every seed left on the board/;
  const oneRow = /A round ends as soon as every seed left on the board lies in one row: each player takes the seeds in their own row/;
  const cases = {
    'walak-pussa': [/counterclockwise \(to the right along your row/, /“necklace”/, stuck],
    'raja-pasu': [/counterclockwise \(to the right along your row/, fours, stuck],
    'pasu-pondi': [/clockwise \(to the left along your row/, fours, oneRow],
    'pasu-pondi-6': [/six seeds in each hole; sowing goes clockwise \(to the left along your row/, fours, oneRow],
  };
  for (const [g, wanted] of Object.entries(cases)) {
    await page.goto(`${server.url}/#/rules/${g}`);
    await page.waitForFunction((x) => document.querySelector('#rules-body')?.dataset.game === x && document.querySelector('#rules-body .intro'), g);
    const intro = (await page.textContent('#rules-body .intro')).replace(/\s+/g, ' ');
    for (const re of wanted) assert.match(intro, re, `${g}: ${re}`);
    // No term sent to another game's page, nothing left undefined.
    assert.doesNotMatch(intro, /as in Raja Pasu|fours taken as they are made/, g);
    // Every game: the repetition rule and endless moves.
    assert.match(intro, /a round also ends when a position comes back .*each player then takes the seeds in their own row/, g);
    assert.match(intro, /A move that would sow for ever .* is not allowed/, g);
  }
  page.checkClean();
  await page.context().close();
});

test("the rules diagram's loop points the way each row's seeds go [4]", async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  for (const [g, ccw] of [
    ['walak-pussa', true],
    ['raja-pasu', true],
    ['pasu-pondi', false],
    ['pasu-pondi-6', false],
  ]) {
    await page.goto(`${server.url}/#/rules/${g}`);
    await page.waitForFunction((x) => document.querySelector('#rules-body')?.dataset.game === x && document.querySelector('#rules-body .intro svg.diagram'), g);
    const heads = await page.$$eval('#rules-body .intro svg.diagram .arrowhead', (ps) =>
      ps.map((p) => {
        // The tip is the path's first point; the base is the mean of the other two.
        const n = p.getAttribute('d').match(/-?\d+(\.\d+)?/g).map(Number);
        const [x0, y0, dx] = n;
        return { row: p.dataset.row, y: y0, points: dx < 0 ? 'right' : 'left', x0 };
      }),
    );
    // The pits' rows: North's on top, South's below.
    const rows = await page.$$eval('#rules-body .intro svg.diagram circle.pit', (cs) => [...new Set(cs.map((c) => Number(c.getAttribute('cy'))))].sort((a, b) => a - b));
    assert.equal(rows.length, 2);
    const [north, south] = rows;
    assert.equal(heads.length, 2, `${g}: an arrowhead along each row`);
    const byRow = Object.fromEntries(heads.map((x) => [Math.abs(x.y - north) < Math.abs(x.y - south) ? 'north' : 'south', x]));
    assert.ok(byRow.north && byRow.south, `${g}: one arrowhead nearer each row`);
    // Counterclockwise: South's row A→G goes right; North's a→g goes left on this picture (g is
    // at the left). Clockwise the other way round.
    assert.equal(byRow.south.points, ccw ? 'right' : 'left', `${g}: South's row`);
    assert.equal(byRow.north.points, ccw ? 'left' : 'right', `${g}: North's row`);
    const label = await page.getAttribute('#rules-body .intro svg.diagram', 'aria-label');
    assert.match(label, ccw ? /from a to g \(to the left on this picture\)/ : /from g to a \(to the right on this picture\)/);
  }
  await page.screenshot({ path: join(SHOTS, 'rules-diagram-clockwise.png') });
  page.checkClean();
  await page.context().close();
});

/** Walak-pussa, South to move: F takes b's 3, and North, left without a seed, cannot move. */
const STUCK = '2,0,0,0,0,1,0/0,3,0,0,0,0,0 25 25 S 1 walak-pussa';

test('the end of a round says who takes the seeds left on the board, and the Rules and the glossary define the words [5]', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'fast' });
  const id = await startAt(page, server, STUCK);
  // The captions of the move, as the animation shows them.
  await page.evaluate(() => {
    window.captions = [];
    new MutationObserver(() => window.captions.push(document.querySelector('#caption').textContent)).observe(document.querySelector('#caption'), {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  await page.click('svg.board .hole[data-hole="F"]');
  await page.waitForSelector('#round-dialog[open]', { timeout: 30000 });
  const captions = await page.evaluate(() => window.captions);
  assert.ok(captions.includes('Round over (North cannot move): South takes the 3 seeds left on the board'), captions.join(' | '));
  assert.ok(!captions.some((c) => /sweeps/.test(c)), captions.join(' | '));
  const body = (await page.textContent('#round-dialog-body')).replace(/\s+/g, ' ');
  assert.match(body, /The game ended: North cannot move\. South takes the 3 seeds left on the board\./);
  const st = await server.get(`/api/games/${id}`);
  assert.deepEqual(st.last_round.swept, [3, 0]);
  await closeDialog(page);
  // The words of the board and the summary are in the page's glossary.
  const glossary = await page.$eval('.glossary', (d) => d.textContent.replace(/\s+/g, ' '));
  assert.match(glossary, /Sweep \(swept at the end\)When a round ends, the seeds left on the board are taken/);
  assert.match(glossary, /Would sow for ever \(endless move\)/);
  assert.match(glossary, /Necklace \(chain\)/);
  // The Rules page's introduction names the necklace and the sweep.
  await page.goto(`${server.url}/#/rules/walak-pussa`);
  await page.waitForSelector('#rules-body .intro');
  const intro = await page.textContent('#rules-body .intro');
  assert.match(intro, /\(the “necklace”, or chain\)/);
  assert.match(intro, /takes every seed left on the board \(the sweep\)/);
  page.checkClean();
  await page.context().close();
});
