// The board's sounds (crates/server/web/sound.js): every tone the page starts is recorded by
// wrapping the browser's real AudioContext, and compared with the trace of the move played.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, settle } from './harness.js';

const env = serverAndBrowser();

// The frequencies sound.js gives each event (Hz): a drop's tick, a lift's knock, a move shown
// without animation, and the first note of a capture's chime.
const DROP = 880;
const LIFT = 196;
const MOVE = 660;
const CAPTURE = 659;

/** Records the frequency of every oscillator the page starts, in `window.__tones`. */
function recordTones() {
  window.__tones = [];
  const Real = window.AudioContext;
  if (!Real) return;
  window.AudioContext = class extends Real {
    createOscillator() {
      const o = super.createOscillator();
      const start = o.start.bind(o);
      o.start = (t) => {
        window.__tones.push(o.frequency.value);
        return start(t);
      };
      return o;
    }
  };
}

/** A same-screen Walak-pussa game opened in a page that records its tones. */
async function openHotseat(speed) {
  const { server, browser } = env;
  const created = await server.post('/api/games', { game: 'walak-pussa', mode: 'single', opponent: { kind: 'hotseat' } });
  const { page, ctx } = await newPage(browser, server, { speed });
  await ctx.addInitScript(recordTones);
  await ctx.addInitScript(
    ([gid, tok]) => localStorage.setItem('pussa.seats', JSON.stringify({ [gid]: { token: tok, seats: ['S', 'N'] } })),
    [created.id, created.token],
  );
  await page.goto(`${server.url}/#/game/${created.id}`);
  await page.waitForSelector('body[data-ready="1"]');
  await settle(page, 0);
  return { page, ctx, id: created.id, state: created.state };
}

/** Plays `move` by clicking its hole and waits until the page shows the answer. */
async function play(page, move, ply) {
  await page.click(`svg.board .hole[data-hole="${move}"]`);
  await settle(page, ply);
}

const tones = (page) => page.evaluate(() => window.__tones.slice());
const count = (list, f) => list.filter((x) => x === f).length;

/** The trace of ply `ply` of game `id`, as the server keeps it. */
async function traceOf(id, ply) {
  const p = await env.server.get(`/api/games/${id}/positions`);
  return p.moves[ply - 1].trace;
}

test('an animated move sounds a tick for every seed dropped and a knock for every lap lifted', async () => {
  const { page } = await openHotseat('fast');
  assert.equal(await page.locator('#sound').isChecked(), true, 'sound is on by default');
  await play(page, 'A', 1);
  const trace = await traceOf(await page.evaluate(() => decodeURIComponent(location.hash.split('/')[2])), 1);
  const heard = await tones(page);
  assert.equal(count(heard, DROP), trace.filter((e) => e.type === 'drop').length, 'one tick a seed');
  assert.equal(count(heard, LIFT), trace.filter((e) => e.type === 'lift').length, 'one knock a lap');
  assert.equal(count(heard, CAPTURE) > 0, trace.some((e) => e.type === 'capture'), 'a chime when seeds are taken');
  page.checkClean();
  await page.context().close();
});

test('without animation a move sounds once; turned off, nothing sounds, and the choice outlives a reload', async () => {
  const { page, id } = await openHotseat('off');
  await play(page, 'B', 1);
  let heard = await tones(page);
  assert.equal(count(heard, MOVE), 1, `one move sound: ${heard}`);
  assert.equal(count(heard, DROP), 0, 'no tick for each seed when nothing is animated');

  await page.locator('#sound').uncheck();
  const legal = (await env.server.get(`/api/games/${id}`)).legal;
  await play(page, legal[0], 2);
  heard = await tones(page);
  assert.equal(count(heard, MOVE), 1, 'no new sound once turned off');

  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await settle(page, 2);
  assert.equal(await page.locator('#sound').isChecked(), false, 'still off after a reload');
  const legal2 = (await env.server.get(`/api/games/${id}`)).legal;
  await play(page, legal2[0], 3);
  assert.deepEqual(await tones(page), [], 'nothing sounds after the reload');

  await page.locator('#sound').check();
  const legal3 = (await env.server.get(`/api/games/${id}`)).legal;
  await play(page, legal3[0], 4);
  assert.equal(count(await tones(page), MOVE), 1, 'turned on again, the next move sounds');
  page.checkClean();
  await page.context().close();
});
