// The rules pages' Markdown renderer (crates/server/web/markdown.js), run in node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

const src = await readFile(new URL('../../crates/server/web/markdown.js', import.meta.url), 'utf8');
const { markdown, inline } = await import(`data:text/javascript,${encodeURIComponent(src)}`);

test('headings, paragraphs, emphasis and code', () => {
  const html = markdown('# Title\n\nSome *soft* and **strong** text\nwith `A<B` code.\n\n## Part two\n');
  assert.equal(
    html,
    '<h2 id="rules-title">Title</h2><p>Some <em>soft</em> and <strong>strong</strong> text with <code>A&lt;B</code> code.</p>' +
      '<h3 id="rules-part-two">Part two</h3>',
  );
});

test('emphasis may hold code spans; code spans hold no markup', () => {
  assert.equal(
    inline('*Tamil Nadu; `pasu-pondi` plays with 5.* and `*not* **this**`'),
    '<em>Tamil Nadu; <code>pasu-pondi</code> plays with 5.</em> and <code>*not* **this**</code>',
  );
});

test('lists, nested and ordered', () => {
  const html = markdown('- one\n- two\n  - two a\n  - two b\n- three\n\n1. first\n2. second\n');
  assert.equal(html, '<ul><li>one</li><li>two<ul><li>two a</li><li>two b</li></ul></li><li>three</li></ul><ol><li>first</li><li>second</li></ol>');
});

test('tables with alignment and escaped pipes', () => {
  const html = markdown('| a | b |\n|---|:-:|\n| 1 | x \\| y |\n| `c` | 2 |\n');
  assert.equal(
    html,
    '<div class="table-wrap"><table><thead><tr><th>a</th><th style="text-align:center">b</th></tr></thead><tbody>' +
      '<tr><td>1</td><td style="text-align:center">x | y</td></tr><tr><td><code>c</code></td><td style="text-align:center">2</td></tr>' +
      '</tbody></table></div>',
  );
});

test('fenced code keeps its text, escaped', () => {
  assert.equal(markdown('```\n<b>4,4</b>\n  x\n```\n'), '<pre><code>&lt;b&gt;4,4&lt;/b&gt;\n  x</code></pre>');
});

test('no HTML gets through; only safe links are links', () => {
  const html = markdown('<script>alert(1)</script> [x](javascript:alert(1)) [y](https://example.org) [z](#matches)');
  assert.ok(!html.includes('<script'), html);
  assert.ok(!html.includes('href="javascript'), html);
  assert.ok(html.includes('<a href="https://example.org" rel="noopener noreferrer">y</a>'), html);
  assert.ok(html.includes('data-anchor="rules-matches"'), html);
  assert.equal(inline('a "q" & b'), 'a &quot;q&quot; &amp; b');
});

test("emphasis crosses a list item's line break, as CommonMark allows (docs/rules.md's *pussa kanawa*)", () => {
  const html = markdown('5. The capture "across the empty hole" (*pussa\n   kanawa* in Walak-pussa, *pussa* in Raja Pasu).\n6. next\n');
  assert.equal(
    html,
    '<ol><li>The capture &quot;across the empty hole&quot; (<em>pussa kanawa</em> in Walak-pussa, <em>pussa</em> in Raja Pasu).</li><li>next</li></ol>',
  );
  // Text after a nested list is read on its own, after the list.
  assert.equal(markdown('- *a\n  b*\n  - sub\n'), '<ul><li><em>a b</em><ul><li>sub</li></ul></li></ul>');
});
