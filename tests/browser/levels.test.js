// The level list of the new-game form follows the ladder of the chosen game and length: it
// offers the server's ladder, says which levels are left out, keeps the player's choice where it
// can, and the game started plays the level shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, gameId, refusedWith } from './harness.js';

const env = serverAndBrowser();

const options = (page) => page.$$eval('#level option', (os) => os.map((o) => o.value));
const selected = (page) => page.$eval('#level', (s) => s.value);

test('the level list offers the ladder of the chosen game and length and keeps the choice where it can', async () => {
  const { server, browser } = env;
  const meta = await server.get('/api/meta');
  const all = meta.levels.map((l) => l.name);
  const raja = meta.games.find((g) => g.name === 'raja-pasu');
  const single = raja.ladders.single.levels;
  const match = raja.ladders.match.levels;
  // A level Raja Pasu matches offer and its single games leave out (the ladders differ there).
  const onlyInMatches = match.filter((l) => !single.includes(l));
  assert.ok(onlyInMatches.length > 0, `Raja Pasu's ladders should differ: ${single} / ${match}`);
  const { page } = await newPage(browser, server);
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.check('input[name="opponent"][value="computer"]');

  await page.check('input[name="game"][value="raja-pasu"]');
  await page.check('input[name="mode"][value="single"]');
  assert.deepEqual(await options(page), single);
  assert.equal(await selected(page), raja.ladders.single.default);
  // The levels left out are named.
  assert.equal(await page.isVisible('#level-note'), true);
  const note = await page.textContent('#level-note');
  for (const l of all.filter((x) => !single.includes(x))) assert.ok(note.includes(l), `${l} in "${note}"`);
  assert.ok(note.includes('Raja Pasu single games'), note);

  // Matches offer their own ladder; a level chosen there that single games leave out becomes
  // the strongest level below it that they offer.
  await page.check('input[name="mode"][value="match"]');
  assert.deepEqual(await options(page), match);
  assert.equal(await page.isVisible('#level-note'), match.length < all.length);
  const chosen = onlyInMatches[onlyInMatches.length - 1];
  await page.selectOption('#level', chosen);
  await page.check('input[name="mode"][value="single"]');
  const below = single.filter((l) => all.indexOf(l) <= all.indexOf(chosen));
  assert.equal(await selected(page), below[below.length - 1]);
  // The choice itself is remembered: back in matches, the level picked there is chosen again,
  // not the lower level single games showed meanwhile.
  await page.check('input[name="mode"][value="match"]');
  assert.equal(await selected(page), chosen);
  await page.check('input[name="mode"][value="single"]');
  // A choice both ladders offer is kept.
  await page.selectOption('#level', 'max');
  await page.check('input[name="mode"][value="match"]');
  assert.equal(await selected(page), 'max');
  await page.check('input[name="mode"][value="single"]');
  assert.equal(await selected(page), 'max');

  // Labels start with the level's name (typing its first letter in the list selects it).
  const labels = await page.$$eval('#level option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(labels.map((t) => t.split(':')[0]), single);
  assert.equal(await page.getAttribute('#level', 'aria-describedby'), 'level-note');
  // The note goes with the computer: a friend on this screen needs no level.
  await page.check('input[name="opponent"][value="hotseat"]');
  assert.equal(await page.isVisible('#level-note'), false);
  await page.check('input[name="opponent"][value="computer"]');
  assert.equal(await page.isVisible('#level-note'), true);

  // The game started plays the level shown.
  await page.selectOption('#level', single[0]);
  await page.click('#start');
  const id = await gameId(page);
  const st = await server.get(`/api/games/${id}`);
  assert.equal(st.opponent.level, single[0]);
  page.checkClean();
  await page.context().close();
});

test('the level picked is offered again after leaving the page and coming back', async () => {
  const { server, browser } = env;
  const meta = await server.get('/api/meta');
  const pondi = meta.games.find((g) => g.name === 'pasu-pondi').ladders.single;
  // A level that is not the default, so that only remembering it can select it.
  const pick = pondi.levels.find((l) => l !== pondi.default);
  const { page } = await newPage(browser, server);
  // /api/meta shown as a page: the browser asks for its /favicon.ico, which the API has not.
  page.expectErrors(refusedWith(404));
  await page.goto(`${server.url}/`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.check('input[name="opponent"][value="computer"]');
  await page.check('input[name="game"][value="pasu-pondi"]');
  await page.check('input[name="mode"][value="single"]');
  assert.equal(await selected(page), pondi.default);
  await page.selectOption('#level', pick);
  // Away to another page and Back: the list is built again, with the level picked.
  await page.goto(`${server.url}/api/meta`);
  await page.goBack();
  await page.waitForSelector('body[data-ready="1"]');
  await page.check('input[name="game"][value="pasu-pondi"]');
  await page.check('input[name="mode"][value="single"]');
  assert.equal(await selected(page), pick);
  // A reload, too.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.check('input[name="game"][value="pasu-pondi"]');
  await page.check('input[name="mode"][value="single"]');
  assert.equal(await selected(page), pick);
  page.checkClean();
  await page.context().close();
});
