// An online game between two browser contexts joined by the invite link, and a watcher: all
// three pages show the server's counts after every move; the watcher cannot move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  serverAndBrowser, newPage, settle, gameId, assertShowsServer, closeDialog, startFromForm, SHOTS,
  refusedWith,
} from './harness.js';

// One `pussa serve` and one Chromium for the file's tests.
const env = serverAndBrowser();

test('two players online through the invite link, and a read-only watcher', async () => {
  const { server, browser } = env;
  const { page: south } = await newPage(browser, server, { speed: 'fast' });
  const id = await startFromForm(south, server, { game: 'pasu-pondi', mode: 'match', opponent: 'online', seat: 'S' });
  await settle(south, 0);
  // The invite link is shown to the creator while the seat is free.
  await south.waitForSelector('#invite-box:not([hidden])');
  const invite = await south.inputValue('#invite-url');
  assert.match(invite, new RegExp(`game=${id}`));
  assert.match(invite, /invite=/);
  // The game starts when the friend has taken the seat: until then nobody moves.
  assert.equal(await south.locator('svg.board .hole.legal').count(), 0, 'South waits for the friend');
  assert.match(await south.textContent('#turn'), /Waiting for your friend to join/);
  await south.screenshot({ path: join(SHOTS, 'online-south-invite.png') });

  const { page: north } = await newPage(browser, server, { speed: 'fast' });
  await north.goto(invite);
  assert.equal(await gameId(north), id);
  await settle(north, 0);
  assert.match(await north.textContent('#game-sub'), /you play North/);
  // North sees its own row nearest: the first hole of the near row is `a`.
  const nearFirst = await north.$$eval('svg.board .hole.near', (gs) =>
    gs.map((g) => [g.dataset.hole, g.getBoundingClientRect().x]).sort((x, y) => x[1] - y[1])[0][0]);
  assert.equal(nearFirst, 'a');
  // Now South, the first mover, may move.
  await south.waitForFunction(() => document.querySelectorAll('svg.board .hole.legal').length === 7);
  // The seat is taken once: another invite is refused (the same invite asked again is answered
  // with the seat it took, docs/api.md).
  const { page: late } = await newPage(browser, server);
  late.expectErrors(refusedWith(409)); // the seat taken, refused
  await late.goto(invite.replace(/invite=[^&]+/, `invite=${'0'.repeat(32)}`));
  await late.waitForSelector('#notice:not([hidden])');
  assert.match(await late.textContent('#notice'), /watching/i);
  await late.context().close();

  const { page: watcher } = await newPage(browser, server, { speed: 'fast' });
  await watcher.goto(`${server.url}/?game=${id}`);
  assert.equal(await gameId(watcher), id);
  await settle(watcher, 0);
  assert.match(await watcher.textContent('#game-sub'), /watching/);
  await south.waitForSelector('#invite-box[hidden]', { state: 'attached' });

  let st = await server.get(`/api/games/${id}`);
  for (let k = 0; k < 8 && !st.match_over; k++) {
    if (k === 2) {
      for (const p of [south, north, watcher]) await p.selectOption('#speed', 'off');
    }
    const mover = st.to_move === 'S' ? south : north;
    const other = mover === south ? north : south;
    await closeDialog(mover);
    assert.equal(await other.locator('svg.board .hole.legal').count(), 0, 'the other player has no playable hole');
    assert.equal(await watcher.locator('svg.board .hole.legal').count(), 0, 'the watcher has no playable hole');
    const legal = await mover.$$eval('svg.board .hole.legal', (gs) => gs.map((g) => g.dataset.hole));
    assert.deepEqual([...legal].sort(), [...st.legal].sort());
    // The watcher clicking or pressing a key changes nothing.
    await watcher.click(`svg.board .hole[data-hole="${legal[0]}"]`, { force: true });
    await watcher.keyboard.press(legal[0]);
    await mover.click(`svg.board .hole[data-hole="${legal[k % legal.length]}"]`);
    const ply = st.ply + 1;
    await settle(mover, ply);
    for (const p of [south, north, watcher]) st = await assertShowsServer(p, server, id, `ply ${ply}`);
    assert.equal(st.ply, ply, 'exactly one move was played');
    assert.equal(st.moves[ply - 1].move, legal[k % legal.length]);
    if (k === 1) {
      await south.screenshot({ path: join(SHOTS, 'online-south.png') });
      await north.screenshot({ path: join(SHOTS, 'online-north.png') });
      await watcher.screenshot({ path: join(SHOTS, 'online-watcher.png') });
    }
  }
  // Undo and hint are not offered online.
  assert.equal(await south.locator('#undo').isVisible(), false);
  assert.equal(await north.locator('#hint').isVisible(), false);
  for (const p of [south, north, watcher]) p.checkClean();
});
