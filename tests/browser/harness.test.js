// The harness itself (QA pass 18, review-tests #1 and #7): a page fails the test that opened it
// when it shows the player an error the test did not declare — an uncaught exception, a
// `console.error` message, or an error notice such as "Display error: …" (the page catches an
// exception thrown while drawing a move, logs it and shows that notice) — whether or not the
// test calls `checkClean()`, on every page of every context, a second tab's included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, newPage, startFromForm, settle } from './harness.js';

const env = serverAndBrowser();

/** Makes `page` show what a move that cannot be drawn shows (app.js, `Game.enqueue`). */
const displayError = (page) =>
  page.evaluate(() => {
    console.error(new Error('the move could not be drawn'));
    const n = document.querySelector('#notice');
    document.querySelector('#notice-text').textContent = 'Display error: the move could not be drawn';
    n.className = 'notice';
    n.hidden = false;
  });

test('a "Display error" notice and a console error are errors the harness reports', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await startFromForm(page, server, { opponent: 'hotseat' });
  await settle(page, 0);
  assert.deepEqual(page.unexpectedErrors(), []);
  await displayError(page);
  await page.waitForFunction(() => !document.querySelector('#notice').hidden);
  await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
  const errors = page.unexpectedErrors();
  assert.ok(errors.some((e) => e.startsWith('console.error:') && e.includes('the move could not be drawn')), String(errors));
  assert.ok(errors.includes('error notice: Display error: the move could not be drawn'), String(errors));
  assert.throws(() => page.checkClean(), /Display error/);
  // Declared, they no longer fail the test (the check after this test passes).
  page.expectErrors('the move could not be drawn');
  assert.deepEqual(page.unexpectedErrors(), []);
  page.checkClean();
});

test('an info notice is not an error, and an uncaught exception is one', async () => {
  const { server, browser } = env;
  const { page } = await newPage(browser, server);
  await startFromForm(page, server, { opponent: 'hotseat' });
  await settle(page, 0);
  await page.evaluate(() => {
    const n = document.querySelector('#notice');
    document.querySelector('#notice-text').textContent = 'Watch link copied.';
    n.className = 'notice info';
    n.hidden = false;
  });
  await page.evaluate(() => setTimeout(() => { throw new Error('uncaught on purpose'); }, 0));
  await page.waitForTimeout(200);
  assert.deepEqual(page.unexpectedErrors(), ['page error: uncaught on purpose']);
  page.expectErrors(/^page error: uncaught on purpose$/);
});

test("a second tab the test opens itself (ctx.newPage) is watched too", async () => {
  const { server, browser } = env;
  const { ctx } = await newPage(browser, server);
  const tab = await ctx.newPage();
  await tab.goto(`${server.url}/`);
  await tab.waitForSelector('body[data-ready="1"]');
  await tab.evaluate(() => console.error('a second tab complains'));
  await tab.waitForTimeout(100);
  assert.equal(typeof tab.unexpectedErrors, 'function', 'the harness watches every page of its contexts');
  assert.deepEqual(tab.unexpectedErrors(), ['console.error: a second tab complains']);
  tab.expectErrors('a second tab complains');
  await tab.close();
});
