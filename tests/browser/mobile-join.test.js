// Two friends on phones over a poor network, second pass (QA pass 19, report2-mobile.md, its
// defects in brackets): the friend's offers float over the top of a phone's screen and never move
// the board [2]; a join whose answer was lost is asked again and answered with the seat
// it took [1]; a proxy's 502/503 on the join is retried [3]; a join never answered is given up
// after a time limit and asked again, the game shown meanwhile [4]; the retry stops when the
// player leaves the game's page [5]; "Move X not sent yet" goes when the game ends [6] and is
// never said of a move the board shows played [7]; a second tab with the same invite gets the
// seat too [8].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, onlineGame, openAs, settle, noticeText, refusedWith } from './harness.js';

const env = serverAndBrowser();

const IPHONE = { width: 390, height: 664 };
const LOST = 'net::ERR_INTERNET_DISCONNECTED';
const sub = (page) => page.textContent('#game-sub');

test('a join whose answer was lost is asked again and the page gets the seat it took [1]', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server, { join: false });
  const { page, ctx } = await newPage(browser, server, { viewport: IPHONE, mobile: true, expectErrors: [LOST, 'Your seat is not taken yet'] });
  let joins = 0;
  await page.route('**/api/games/*/join', async (route) => {
    if (joins++) return route.continue();
    // The server takes the seat; its answer never arrives.
    await route.fetch();
    await route.abort('internetdisconnected');
  });
  await page.goto(g.url);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForFunction(() => /you play North/.test(document.querySelector('#game-sub').textContent), null, { timeout: 20000 });
  assert.ok(joins >= 2, `asked again (${joins} joins)`);
  assert.doesNotMatch(await noticeText(page), /Cannot take the seat|watching/);
  // The page holds the seat: its move is played.
  await server.post(`/api/games/${g.id}/moves`, { token: g.S.token, move: (await server.get(`/api/games/${g.id}`)).legal[0] });
  await settle(page, 1);
  const move = (await server.get(`/api/games/${g.id}`)).legal[0];
  await page.locator(`svg.board .hole[data-hole="${move}"]`).tap();
  await page.waitForFunction(() => document.body.dataset.ply === '2', null, { timeout: 15000 });
  assert.equal((await server.get(`/api/games/${g.id}`)).ply, 2);
  await ctx.close();
});

for (const code of [502, 503]) {
  test(`a ${code} from a proxy on the join is not a refusal: the invite is kept and asked again [3]`, async () => {
    const { server, browser } = env;
    const g = await onlineGame(server, { join: false });
    const { page, ctx } = await newPage(browser, server, { viewport: IPHONE, mobile: true, expectErrors: [refusedWith(code), 'Your seat is not taken yet'] });
    let joins = 0;
    await page.route('**/api/games/*/join', (route) =>
      joins++ ? route.continue() : route.fulfill({ status: code, contentType: 'text/html', body: `<html><body><h1>${code}</h1>nginx</body></html>` }),
    );
    await page.goto(g.url);
    await page.waitForSelector('body[data-ready="1"]');
    await page.waitForFunction(() => /you play North/.test(document.querySelector('#game-sub').textContent), null, { timeout: 20000 });
    assert.ok(joins >= 2, `asked again (${joins} joins)`);
    assert.equal((await server.get(`/api/games/${g.id}`)).seats.N.taken, true);
    assert.doesNotMatch(await noticeText(page), /Cannot take the seat/);
    await ctx.close();
  });
}

test('a join never answered shows the game "Taking your seat…", is given up after its time limit and asked again [4]', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server, { join: false });
  const { page, ctx } = await newPage(browser, server, { viewport: IPHONE, mobile: true, expectErrors: ['Your seat is not taken yet', 'no answer'] });
  let joins = 0;
  await page.route('**/api/games/*/join', (route) => {
    // The first request is swallowed: no answer, no error (a dead NAT mapping).
    if (joins++) return route.continue();
    return new Promise(() => {});
  });
  await page.goto(g.url);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForFunction(() => /Taking your seat/.test(document.querySelector('#turn')?.textContent || ''), null, { timeout: 5000 });
  assert.match(await sub(page), /watching/);
  await page.waitForFunction(() => /you play North/.test(document.querySelector('#game-sub').textContent), null, { timeout: 25000 });
  assert.ok(joins >= 2, `asked again (${joins} joins)`);
  await ctx.close();
});

test('the join retry stops when the player leaves the game page [5]', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server, { join: false });
  const { page, ctx } = await newPage(browser, server, { viewport: IPHONE, mobile: true, expectErrors: [LOST, 'Your seat is not taken yet'] });
  let down = true;
  let joins = 0;
  await page.route('**/api/games/*/join', (route) => {
    joins++;
    return down ? route.abort('internetdisconnected') : route.continue();
  });
  await page.goto(g.url);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForFunction(() => /not taken yet/.test(document.querySelector('#notice-text').textContent));
  // The player goes to the New game page (no reload).
  await page.evaluate(() => (location.hash = '#/'));
  await page.waitForTimeout(300);
  const before = joins;
  down = false;
  await page.evaluate(() => window.dispatchEvent(new Event('online')));
  await page.waitForTimeout(5000);
  assert.equal(joins, before, 'no join asked after leaving');
  assert.equal((await server.get(`/api/games/${g.id}`)).seats.N.taken, false, 'the seat was not taken behind the player\'s back');
  await ctx.close();
});

test('"Move X not sent yet" goes when the friend resigns [6]', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page, ctx } = await openAs(browser, server, g.id, g.S, { viewport: IPHONE, mobile: true, expectErrors: [LOST, 'not sent yet'] });
  await settle(page, 0);
  const move = (await server.get(`/api/games/${g.id}`)).legal[0];
  await page.route('**/api/games/*/moves', (route) => route.abort('internetdisconnected'));
  await page.locator(`svg.board .hole[data-hole="${move}"]`).tap();
  await page.waitForFunction(() => /not sent yet/.test(document.querySelector('#notice-text').textContent));
  await server.post(`/api/games/${g.id}/resign`, { token: g.N.token });
  await page.waitForFunction(() => /resigned/.test(document.querySelector('#turn').textContent), null, { timeout: 10000 });
  await page.waitForFunction(() => document.querySelector('#notice').hidden || !/not sent yet/.test(document.querySelector('#notice-text').textContent), null, { timeout: 5000 });
  assert.doesNotMatch(await page.textContent('#turn'), /not sent yet/);
  await page.waitForTimeout(3000);
  assert.doesNotMatch(await noticeText(page), /not sent yet/);
  assert.equal((await server.get(`/api/games/${g.id}`)).ply, 0, 'the move was never played');
  await ctx.close();
});

test('offline after a lost answer, a move the board shows played is not called unsent [7]', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server);
  const { page, ctx } = await openAs(browser, server, g.id, g.S, { viewport: IPHONE, mobile: true, expectErrors: [LOST, 'not sent yet', 'being restored'] });
  await settle(page, 0);
  const move = (await server.get(`/api/games/${g.id}`)).legal[0];
  await page.route('**/api/games/*/moves', async (route) => {
    await route.fetch();
    // The live update of the move arrives; then the phone goes offline before the answer.
    await page.waitForFunction(() => document.body.dataset.ply === '1', null, { timeout: 10000 });
    await ctx.setOffline(true);
    await route.abort('internetdisconnected');
  });
  await page.locator(`svg.board .hole[data-hole="${move}"]`).tap();
  await page.waitForFunction(() => document.body.dataset.ply === '1', null, { timeout: 15000 });
  await page.waitForTimeout(1500);
  assert.doesNotMatch(await page.textContent('#turn'), /not sent yet/);
  assert.doesNotMatch(await noticeText(page), /not sent yet/);
  await ctx.setOffline(false);
  await ctx.close();
});

test('two tabs with one invite: both end as the player, neither keeps trying [8]', async () => {
  const { server, browser } = env;
  const g = await onlineGame(server, { join: false });
  const { page, ctx } = await newPage(browser, server, { viewport: IPHONE, mobile: true, expectErrors: [LOST, 'Your seat is not taken yet'] });
  let down = true;
  await ctx.route('**/api/games/*/join', (route) => (down ? route.abort('internetdisconnected') : route.continue()));
  await page.goto(g.url);
  const tab2 = await ctx.newPage();
  tab2.expectErrors(LOST, 'Your seat is not taken yet');
  await tab2.goto(g.url);
  for (const p of [page, tab2]) await p.waitForFunction(() => /not taken yet/.test(document.querySelector('#notice-text').textContent));
  down = false;
  for (const p of [page, tab2]) {
    await p.waitForFunction(() => /you play North/.test(document.querySelector('#game-sub').textContent), null, { timeout: 25000 });
    assert.doesNotMatch(await noticeText(p), /keeps trying/);
  }
  await ctx.close();
});

for (const [name, viewport] of [
  ['iPhone 13 upright', IPHONE],
  ['iPhone 13 sideways', { width: 664, height: 390 }],
  ['Pixel 7 sideways', { width: 915, height: 412 }],
]) {
  test(`the friend's two offers leave the board where it was and the player's own row in sight: ${name} [2]`, async () => {
    const { server, browser } = env;
    const g = await onlineGame(server);
    await server.post(`/api/games/${g.id}/moves`, { token: g.S.token, move: (await server.get(`/api/games/${g.id}`)).legal[0] });
    const { page, ctx } = await openAs(browser, server, g.id, g.N, { viewport, mobile: true });
    await settle(page, 1);
    const measure = () =>
      page.evaluate(() => {
        const b = document.querySelector('#board-host').getBoundingClientRect();
        const own = [...document.querySelectorAll('svg.board .hole.legal')].map((h) => {
          const r = h.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return { bottom: r.bottom, top: r.top, free: !!hit && !!hit.closest('svg.board') };
        });
        const acc = [...document.querySelectorAll('#offer-accept, #offer-decline, #offer2-accept, #offer2-decline')].map((x) => x.getBoundingClientRect());
        return { top: b.top, bottom: b.bottom, vh: innerHeight, scrollY, own, acc: acc.map((r) => [r.top, r.bottom]) };
      });
    const before = await measure();
    assert.ok(before.own.length > 0, 'North has holes to play');
    const st = await server.get(`/api/games/${g.id}`);
    await server.post(`/api/games/${g.id}/takeback`, { token: g.S.token, offer: true, expected_ply: st.ply });
    await page.waitForSelector('#offer-bar:not([hidden])');
    await server.post(`/api/games/${g.id}/draw`, { token: g.S.token, offer: true });
    await page.waitForSelector('#offer-bar2:not([hidden])');
    await page.waitForTimeout(300);
    const after = await measure();
    assert.equal(after.scrollY, 0);
    assert.ok(Math.abs(after.top - before.top) < 1, `the board does not move: ${before.top} → ${after.top}`);
    for (const h of after.own) {
      assert.ok(h.top >= 0 && h.bottom <= after.vh, `own hole in sight: ${JSON.stringify(after)}`);
      assert.ok(h.free, `own hole not covered: ${JSON.stringify(after)}`);
    }
    assert.equal(after.acc.length, 4, 'two Accept and two Decline buttons');
    for (const [top, bottom] of after.acc) assert.ok(top >= 0 && bottom <= after.vh, `Accept/Decline in sight: ${JSON.stringify(after)}`);
    await ctx.close();
  });
}
