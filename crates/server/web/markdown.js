// A small Markdown renderer for the rules pages: headings, paragraphs, lists (nested by
// indentation), tables, fenced code, block quotes, and inline code, bold, italic and links.
// Everything is escaped first; only the tags written here are produced.

function esc(s) {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Inline markup on one line of text (already a plain string). */
export function inline(text) {
  // Code spans first, set aside as placeholders, so that emphasis and links may span them
  // (`*an italic with `code` in it*`) and nothing inside them is read as markup.
  const codes = [];
  const held = text.replace(/`([^`]*)`/g, (_, code) => {
    codes.push(`<code>${esc(code)}</code>`);
    return `\u0001${codes.length - 1}\u0001`;
  });
  let s = esc(held);
  s = s.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label, href) => {
    // In-page anchors scroll to the heading; web links open; anything else (a file of the
    // repository) is shown as text.
    if (href.startsWith('#')) return `<a href="${href}" data-anchor="rules-${href.slice(1)}">${label}</a>`;
    if (/^https?:/.test(href)) return `<a href="${href}" rel="noopener noreferrer">${label}</a>`;
    return `<span class="ref" title="${href}">${label}</span>`;
  });
  s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  s = s.replace(/(^|[^*\w])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>');
  s = s.replace(/(^|[^_\w])_([^_\s][^_]*)_(?!\w)/g, '$1<em>$2</em>');
  return s.replace(/\u0001(\d+)\u0001/g, (_, i) => codes[Number(i)]);
}

function splitRow(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

const LIST_RE = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;

function renderList(lines, start) {
  // Returns [html, nextIndex]. Items are nested by their indentation.
  const first = lines[start].match(LIST_RE);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  let html = ordered ? '<ol>' : '<ul>';
  let i = start;
  // The item being read: its text lines and nested lists in order. The lines of one stretch of
  // text are joined before the inline markup is read, so that emphasis (or a link) may cross a
  // line break, as CommonMark allows (`*pussa⏎kanawa*`).
  let item = null;
  const flush = () => {
    if (item !== null) {
      let out = '';
      let text = [];
      const put = () => {
        if (text.length) out += (out ? ' ' : '') + inline(text.join(' '));
        text = [];
      };
      for (const part of item) {
        if (typeof part === 'string') text.push(part);
        else {
          put();
          out += part.html;
        }
      }
      put();
      html += `<li>${out}</li>`;
    }
    item = null;
  };
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      // A blank line ends the list unless the next line continues it.
      const next = lines[i + 1];
      if (next && (LIST_RE.test(next) || /^\s{2,}\S/.test(next)) && (next.match(/^\s*/)[0].length >= indent)) {
        i++;
        continue;
      }
      break;
    }
    const m = line.match(LIST_RE);
    if (m && m[1].length === indent && /\d/.test(m[2]) !== ordered) break; // another kind of list
    if (m && m[1].length === indent) {
      flush();
      item = [m[3]];
      i++;
    } else if (m && m[1].length > indent) {
      const [sub, j] = renderList(lines, i);
      item = [...(item ?? []), { html: sub }];
      i = j;
    } else if (!m && line.match(/^\s*/)[0].length > indent && item !== null) {
      item.push(line.trim());
      i++;
    } else {
      break;
    }
  }
  flush();
  html += ordered ? '</ol>' : '</ul>';
  return [html, i];
}

/** Renders Markdown text to an HTML string. */
export function markdown(src) {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  let html = '';
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = line.match(/^\s*(```|~~~)(.*)$/);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i++;
      html += `<pre><code>${esc(body.join('\n'))}</code></pre>`;
      continue;
    }
    const h = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (h) {
      const n = Math.min(6, h[1].length + 1); // the page has its own h1
      const id = h[2].toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
      html += `<h${n} id="rules-${id}">${inline(h[2])}</h${n}>`;
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      html += '<hr>';
      i++;
      continue;
    }
    if (line.trim().startsWith('|') && i + 1 < lines.length && /^\s*\|?\s*:?-{2,}/.test(lines[i + 1])) {
      const head = splitRow(line);
      const aligns = splitRow(lines[i + 1]).map((c) =>
        c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : '',
      );
      i += 2;
      let t = '<div class="table-wrap"><table><thead><tr>';
      head.forEach((c, k) => {
        t += `<th${aligns[k] ? ` style="text-align:${aligns[k]}"` : ''}>${inline(c)}</th>`;
      });
      t += '</tr></thead><tbody>';
      while (i < lines.length && lines[i].trim().startsWith('|')) {
        const cells = splitRow(lines[i]);
        t += '<tr>';
        head.forEach((_, k) => {
          t += `<td${aligns[k] ? ` style="text-align:${aligns[k]}"` : ''}>${inline(cells[k] ?? '')}</td>`;
        });
        t += '</tr>';
        i++;
      }
      html += t + '</tbody></table></div>';
      continue;
    }
    if (LIST_RE.test(line)) {
      const [l, j] = renderList(lines, i);
      html += l;
      i = j;
      continue;
    }
    if (line.startsWith('>')) {
      const body = [];
      while (i < lines.length && lines[i].startsWith('>')) body.push(lines[i++].replace(/^>\s?/, ''));
      html += `<blockquote>${markdown(body.join('\n'))}</blockquote>`;
      continue;
    }
    const para = [];
    while (
      i < lines.length &&
      lines[i].trim() &&
      !/^(#{1,6}\s|```|~~~|>)/.test(lines[i]) &&
      !LIST_RE.test(lines[i]) &&
      !lines[i].trim().startsWith('|')
    ) {
      para.push(lines[i].trim());
      i++;
    }
    if (para.length === 0) {
      // A line no rule above took (e.g. a lone table row): show it as text.
      para.push(lines[i].trim());
      i++;
    }
    html += `<p>${inline(para.join(' '))}</p>`;
  }
  return html;
}
