// The game view (QA pass 15, localweb report): an answer that ends two rounds and the match gets
// one summary per round, the last one with the match's end; the last moves are explained again
// (caption and Replay) after a reload or Back/Forward; the history banner numbers moves as the
// move list and records do; a hint survives looking at an earlier position and coming back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, settle, assertShowsServer, startFromForm, closeDialog, openAs } from './harness.js';

const env = serverAndBrowser();

// A Raja Pasu match in round 8 (QA's game gpefsxcate), North to move with only `g` legal. The
// computer's answer ends round 8, opens round 9 and ends it and the match (North, with one open
// hole, cannot move).
const RAJA_R8 = `[Game "raja-pasu"]
[Mode "match"]
[First "N"]

1... f 2. F f 3. C d 4. B b 5. F a 6. G e 7. B f 8. D g 9. A a 10. C b 11. B c
12. C f 13. D g 14. B d 15. A e 16. D f 17. E g 18. F
R2 1. F b 2. G a 3. F e 4. F a 5. D g 6. C b 7. E c 8. B d 9. C e 10. D f 11. F
g 12. B
R3 1. F b 2. D e 3. B b 4. C d 5. E b 6. F
R4 1. D e 2. G d 3. F e 4. G f 5. E g 6. F b 7. E a 8. B f 9. D g 10. B
R5 1. D g 2. B g 3. C f 4. E a 5. B f 6. B g 7. D b 8. B c 9. C d 10. D e 11. E
f 12. F g 13. B
R6 1. A g 2. C d 3. C d 4. D e 5. E e 6. C c 7. D e 8. B f 9. D g 10. C
R7 1. D e 2. B g 3. F
R8 1. A *
`;

const dialog = (page) =>
  page.evaluate(() => ({
    open: document.querySelector('#round-dialog').open,
    title: document.querySelector('#round-dialog-title').textContent,
    body: document.querySelector('#round-dialog-body').textContent.replace(/\s+/g, ' '),
    ok: document.querySelector('#round-dialog-ok').textContent,
  }));

test('an answer that ends two rounds and the match: round 8\'s summary (not "Match over"), then round 9\'s with the match\'s end', async () => {
  const { server, browser } = env;
  // The beginner's answer is drawn at random among its choices: most of them end round 9 at
  // once; a game where it did not is tried again.
  let r;
  let page;
  let st;
  for (let tries = 0; ; tries++) {
    r = await server.post('/api/games/import', { record: RAJA_R8, opponent: { kind: 'computer', level: 'beginner' }, seat: 'N' });
    assert.equal(r.state.round, 8);
    assert.deepEqual(r.state.legal, ['g']);
    ({ page } = await openAs(browser, server, r.id, { token: r.token, seats: r.seats || ['N'] }, { speed: 'off' }));
    await settle(page, r.state.ply);
    // Round 7's summary shows again on opening (nobody of ours has moved in round 8).
    await page.waitForSelector('#round-dialog[open]');
    await closeDialog(page);
    await page.keyboard.press('g');
    // Wait for the computer's answer: it is over when North is to move again or the match is.
    const deadline = Date.now() + 60000;
    for (;;) {
      st = await server.get(`/api/games/${r.id}`);
      if (st.ply > r.state.ply + 1 && (st.match_over || st.to_move === 'N')) break;
      assert.ok(Date.now() < deadline, 'the computer answers within 60 s');
      await new Promise((res) => setTimeout(res, 100));
    }
    // The answer ended both rounds, and the match. (Some answers, such as E, do not even end
    // round 8: no summary opens then.)
    if (st.match_over && st.rounds.slice(-2).map((x) => x.round).join() === '8,9') {
      await page.waitForFunction(() => document.querySelector('#round-dialog').open, null, { timeout: 60000 });
      break;
    }
    page.checkClean();
    await page.context().close();
    assert.ok(tries < 10, 'the computer\'s answer ends rounds 8 and 9');
  }
  const first = await dialog(page);
  assert.equal(first.title, 'Round over');
  assert.match(first.body, /^Round 8 ended: you cannot move\./);
  assert.match(first.body, /Round 9 is laid out: South holds \d+ in store, North \d+\. Closed holes: a b c d e f\. South starts\./);
  assert.doesNotMatch(first.body, /Round 9 ended|wins|Match over/);
  assert.equal(first.ok, 'Continue');
  assert.equal(await page.locator('#rematch').isVisible(), false, 'no "Play again" before the match is over');
  // The turn line and the caption agree with it.
  assert.equal(await page.textContent('#turn'), 'Round 8 is over: round 9 starts when you close its summary.');
  const caption = await page.textContent('#caption');
  assert.match(caption, /^You played g .*Round over: you cannot move/);
  assert.doesNotMatch(caption, /Round over.*Round over/, 'the caption tells the answer up to round 8\'s end only');
  await page.click('#round-dialog-ok');
  // Round 9's summary follows, with the match's end.
  await page.waitForFunction(() => document.querySelector('#round-dialog').open && document.querySelector('#round-dialog-title').textContent === 'Match over', null, { timeout: 30000 });
  const second = await dialog(page);
  assert.match(second.body, /^Round 9 ended: you cannot move\./);
  assert.doesNotMatch(second.body, /Round 8 ended/);
  // North holds too few to fill a hole: the match's end says so (the sentence of `pussa replay`).
  const why = `You hold ${st.stores[1]}, too few to fill a hole of 7 seeds, so the match is over: Computer wins, ${st.stores[0]} to ${st.stores[1]}.`;
  assert.ok(second.body.includes(why), second.body);
  assert.equal(second.ok, 'Close');
  await settle(page, st.ply);
  assert.equal(await page.textContent('#turn'), why);
  await closeDialog(page);
  await assertShowsServer(page, server, r.id, 'the match over');
  page.checkClean();
  await page.context().close();
});

test('after a reload, and after Back then Forward, the caption tells the last moves again and R replays them', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'off' });
  const id = await startFromForm(page, server, { game: 'raja-pasu', opponent: 'computer', level: 'beginner' });
  await settle(page, 0);
  await page.click('svg.board .hole[data-hole="C"]');
  await settle(page, 2);
  await closeDialog(page);
  const told = await page.textContent('#caption');
  assert.match(told, /^You played C \(\d+ laps?[^)]*\)\. Computer played [a-g] /);
  assert.equal(await page.locator('#replay').isEnabled(), true);
  const check = async (what) => {
    await page.waitForFunction((t) => document.querySelector('#caption').textContent === t, told, { timeout: 10000 }).catch(() => {});
    assert.equal(await page.textContent('#caption'), told, `${what}: the caption tells the last moves`);
    assert.equal(await page.locator('#replay').isEnabled(), true, `${what}: Replay is enabled`);
  };
  await page.reload();
  await settle(page, 2);
  await check('after a reload');
  // R replays both moves from the position before yours, and ends on the server's position.
  await page.keyboard.press('r');
  await page.waitForFunction(() => document.body.dataset.busy === '1', null, { timeout: 5000 });
  // (The replay of a 12-lap move is long: skipped once it has started.)
  await page.keyboard.press('Escape');
  await settle(page, 2);
  await assertShowsServer(page, server, id, 'after the replay');
  assert.equal(await page.textContent('#caption'), told, 'after the replay');
  await page.goBack();
  await page.waitForFunction(() => !document.querySelector('#view-home').hidden);
  await page.goForward();
  await settle(page, 2);
  await check('after Back then Forward');
  page.checkClean();
  await page.context().close();
});

test('the history banner and caption number moves as the move list and records do', async () => {
  const { server, browser } = env;
  const r = await server.post('/api/games/import', { record: RAJA_R8 });
  const { page } = await openAs(browser, server, r.id, { token: r.token, seats: r.seats || ['S', 'N'] }, { speed: 'off' });
  await settle(page, r.state.ply);
  await closeDialog(page);
  const banner = () => page.textContent('#history-text');
  // `R2 4. F a` in the record.
  await page.click('#move-list .mv[aria-label="Round 2, move 4, South: F"]');
  assert.equal(await banner(), 'Viewing R2 4. F — press End to return');
  assert.equal(await page.textContent('#caption'), 'Round 2, move 4: South played F.');
  await page.keyboard.press('ArrowRight');
  assert.equal(await banner(), 'Viewing R2 4... a — press End to return');
  // Round 1's first move is North's: `1... f`.
  await page.click('#move-list .mv[aria-label="Round 1, move 1, North: f"]');
  assert.equal(await banner(), 'Viewing 1... f — press End to return');
  await page.keyboard.press('Home');
  assert.equal(await banner(), 'Viewing the start of the game — press End to return');
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.body.dataset.view === undefined);
  // A single game: no round markers, and a number counts a South move and the North one after it.
  const single = await server.post('/api/games/import', { record: '[Game "raja-pasu"]\n\n1. G e 2. D c 3. B *\n' });
  await page.goto(`${server.url}/#/game/${single.id}`);
  await settle(page, 5);
  await page.click('#move-list .mv[data-ply="3"]');
  assert.equal(await banner(), 'Viewing 2. D — press End to return');
  await page.keyboard.press('ArrowRight');
  assert.equal(await banner(), 'Viewing 2... c — press End to return');
  assert.equal(await page.textContent('#caption'), 'Move 2: North played c.');
  assert.equal(await banner().then((t) => /\d+ of \d+/.test(t)), false);
  page.checkClean();
  await page.context().close();
});

test('a hint stays with the live position: labelled while an earlier one is shown, back with its mark on End', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server, { speed: 'off' });
  const id = await startFromForm(page, server, { game: 'raja-pasu', opponent: 'hotseat' });
  await settle(page, 0);
  await page.click('svg.board .hole[data-hole="B"]');
  await settle(page, 1);
  await page.keyboard.press('h');
  await page.waitForFunction(() => /^Hint: [a-g]/.test(document.querySelector('#hint-text').textContent), null, { timeout: 60000 });
  const hint = await page.textContent('#hint-text');
  const marked = () => page.$$eval('svg.board .hole.hint', (gs) => gs.map((g) => g.dataset.hole));
  const mark = await marked();
  assert.equal(mark.length, 1);
  assert.equal(hint.slice(6, 7), mark[0], 'the hole marked is the hint\'s');
  // An earlier position: the hint is not shown as if it were for it.
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.body.dataset.view === '0');
  assert.equal(await page.textContent('#hint-text'), `The hint (${mark[0]}) is for the live position: press End to see it again.`);
  assert.deepEqual(await marked(), []);
  // Back to the live position: the same hint, with its mark, without asking again.
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.body.dataset.view === undefined);
  assert.equal(await page.textContent('#hint-text'), hint);
  assert.deepEqual(await marked(), mark);
  // The position changes: the hint goes.
  await page.click(`svg.board .hole[data-hole="${mark[0]}"]`);
  await settle(page, 2);
  await assertShowsServer(page, server, id, 'after the hinted move');
  assert.equal(await page.textContent('#hint-text'), '');
  assert.deepEqual(await marked(), []);
  page.checkClean();
  await page.context().close();
});
