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

test('without animation the player\'s move and the computer\'s reply each sound, one after the other', async () => {
  const { server, browser } = env;
  const created = await server.post('/api/games', { game: 'walak-pussa', mode: 'single', seat: 'S', first: 'S', opponent: { kind: 'computer', level: 'beginner' } });
  // Under reduced motion the page's own default speed is "no animation".
  const { page, ctx } = await newPage(browser, server, { speed: null, media: { reducedMotion: 'reduce' } });
  // Every tone with the time it is to start, from the moment it was asked for (s).
  await ctx.addInitScript(() => {
    window.__timed = [];
    const Real = window.AudioContext;
    window.AudioContext = class extends Real {
      createOscillator() {
        const o = super.createOscillator();
        const start = o.start.bind(o);
        o.start = (t) => {
          window.__timed.push([o.frequency.value, t - this.currentTime]);
          return start(t);
        };
        return o;
      }
    };
  });
  await ctx.addInitScript(
    ([gid, tok]) => localStorage.setItem('pussa.seats', JSON.stringify({ [gid]: { token: tok, seats: ['S'] } })),
    [created.id, created.token],
  );
  await page.goto(`${server.url}/#/game/${created.id}`);
  await page.waitForSelector('body[data-ready="1"]');
  await settle(page, 0);
  assert.equal(await page.inputValue('#speed'), 'off', 'reduced motion: no animation');
  for (let ply = 2; ply <= 6; ply += 2) {
    await page.evaluate(() => (window.__timed = []));
    const legal = (await server.get(`/api/games/${created.id}`)).legal;
    await page.click(`svg.board .hole[data-hole="${legal[0]}"]`);
    await settle(page, ply);
    const st = await server.get(`/api/games/${created.id}`);
    if (st.status !== 'ongoing' && st.ply < ply) break;
    const positions = await server.get(`/api/games/${created.id}/positions`);
    const [mine, reply] = positions.moves.slice(ply - 2, ply).map((m) => m.trace);
    const timed = await page.evaluate(() => window.__timed.slice());
    const ticks = timed.filter(([f]) => f === MOVE).map(([, t]) => t);
    assert.equal(ticks.length, 2, `one move sound for each of the two moves: ${JSON.stringify(timed)}`);
    assert.ok(ticks[1] - ticks[0] >= 0.2, `the reply's sound comes after the move's, heard apart (${ticks})`);
    const took = (tr) => tr.some((e) => e.type === 'capture' || e.type === 'four');
    const chimes = timed.filter(([f]) => f === CAPTURE).map(([, t]) => t);
    assert.equal(chimes.length, Number(took(mine)) + Number(took(reply)), `a chime for each move that took seeds: ${JSON.stringify(timed)}`);
    // Each chime belongs to its move: the move's own comes before the reply's tick.
    if (took(mine)) assert.ok(chimes[0] < ticks[1], 'the move\'s chime before the reply\'s tick');
    if (took(reply)) assert.ok(chimes[chimes.length - 1] > ticks[1], 'the reply\'s chime after its tick');
  }
  page.checkClean();
  await ctx.close();
});

test('the help page tells the sounds, how to turn them off, and the board-turning box', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await page.goto(`${server.url}/#/help`);
  await page.waitForSelector('body[data-ready="1"]');
  const help = await page.locator('#view-help').innerText();
  assert.match(help, /Sound: a tick for each seed dropped/);
  assert.match(help, /the Sound box by Speed turns them off/);
  assert.match(help, /Turn the board to the player to move/);
  page.checkClean();
  await page.context().close();
});
