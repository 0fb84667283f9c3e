// The board: an SVG drawing of the 14 holes and the two stores, seen from one side, and the
// lap-by-lap animation of a move from the server's trace. The page never decides what is legal:
// it draws what the server sent and replays the server's trace; the final state always wins.

const SVG = 'http://www.w3.org/2000/svg';
export const LETTERS = 'ABCDEFGabcdefg';
export const SIDES = ['South', 'North'];

const HOLE_R = 50;
// Two geometries: wide (stores at the ends of the rows) and compact, for phones (stores as bars
// above and below the rows, so the holes get the whole width). Counts sit in the wood's margins,
// letters outside the wood.
const GEOMETRY = {
  wide: {
    W: 1000,
    H: 452,
    colX: (i) => 180 + i * 106.7,
    rowY: { far: 150, near: 290 },
    store: { w: 96, h: 240, y: 100, rx: 44 },
    wood: { x: 8, y: 40, w: 984, h: 360 },
    countY: { far: 82, near: 386 },
    letterY: { far: 26, near: 432 },
  },
  compact: {
    W: 760,
    H: 560,
    colX: (i) => 60 + i * 106.7,
    rowY: { far: 215, near: 345 },
    store: { w: 740, h: 62, rx: 31 },
    storeY: { far: 8, near: 490 },
    wood: { x: 4, y: 112, w: 752, h: 340 },
    countY: { far: 142, near: 432 },
    letterY: { far: 96, near: 476 },
  },
};
const MAX_DRAWN = 60;

/** Hole index (0..13) of a letter, or -1. */
export function holeIndex(letter) {
  return LETTERS.indexOf(letter);
}

/** 0 for "S"/"South", 1 for "N"/"North", -1 otherwise. */
export function sideNum(s) {
  if (s === 'S' || s === 'South') return 0;
  if (s === 'N' || s === 'North') return 1;
  return -1;
}

/** The owner (0 South, 1 North) of hole index i. */
export function ownerOf(i) {
  return i < 7 ? 0 : 1;
}

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// A small deterministic hash so a seed keeps its colour and jitter from one frame to the next.
function jitter(i, k) {
  let x = (Math.imul(i + 1, 2654435761) + Math.imul(k + 1, 40503)) >>> 0;
  x = (x ^ (x >>> 13)) >>> 0;
  x = Math.imul(x, 0x5bd1e995) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  return (x % 1000) / 1000;
}

const SEED_FILLS = ['#f6eedb', '#efe2c4', '#e6d3ad', '#f9f3e6', '#dcc59a'];

/** Draws `n` seeds laid out on a sunflower spiral inside a circle of radius `r` at (cx, cy). */
function drawSeeds(g, n, cx, cy, r, salt, fresh = false) {
  g.replaceChildren();
  const shown = Math.min(n, MAX_DRAWN);
  if (shown === 0) return;
  const rs = Math.max(3.2, Math.min(9, (0.92 * r) / Math.sqrt(shown + 0.6)));
  const c = (r - rs - 2) / Math.sqrt(shown);
  const golden = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < shown; i++) {
    const rad = shown === 1 ? 0 : c * Math.sqrt(i + 0.5);
    const a = i * golden + jitter(i, salt) * 0.4;
    const s = el('circle', {
      cx: (cx + rad * Math.cos(a)).toFixed(1),
      cy: (cy + rad * Math.sin(a)).toFixed(1),
      r: rs.toFixed(1),
      fill: SEED_FILLS[Math.floor(jitter(i, salt + 7) * SEED_FILLS.length)],
      class: 'seed',
    }, g);
    if (fresh && i === shown - 1) s.classList.add('fresh');
  }
}

/** The board's model: holes, closed holes, stores. */
export function cloneModel(m) {
  return { board: [...m.board], closed: [...m.closed], stores: [...m.stores] };
}

export class Board {
  /**
   * @param {HTMLElement} host where the SVG goes
   * @param {object} opts  onPlay(letter) when a legal hole is chosen
   */
  constructor(host, opts = {}) {
    this.host = host;
    this.onPlay = opts.onPlay || (() => {});
    this.onOther = opts.onOther || (() => {});
    this.view = 0; // the side drawn nearest
    this.names = ['South', 'North'];
    this.legal = new Set();
    // The mover's holes that hold seeds but would sow for ever (not legal moves).
    this.endless = new Set();
    // While a move is played or shown (`busy`), the hole with the focus keeps it.
    this.busy = false;
    this.model = { board: new Array(14).fill(0), closed: new Array(14).fill(false), stores: [0, 0] };
    this.build();
  }

  build() {
    const svg = el('svg', {
      class: 'board',
      role: 'group',
      'aria-label': 'Board',
    });
    const defs = el('defs', {}, svg);
    const grad = el('radialGradient', { id: 'holeGrad', cx: '50%', cy: '40%', r: '60%' }, defs);
    el('stop', { offset: '0%', 'stop-color': '#5c3a1c' }, grad);
    el('stop', { offset: '100%', 'stop-color': '#7e5129' }, grad);
    this.wood = el('rect', { rx: 60, class: 'wood' }, svg);
    this.svg = svg;
    this.holes = [];
    for (let i = 0; i < 14; i++) {
      const g = el('g', { class: 'hole', 'data-hole': LETTERS[i] }, svg);
      const ring = el('circle', { r: HOLE_R + 6, class: 'ring' }, g);
      const pit = el('circle', { r: HOLE_R, class: 'pit' }, g);
      const seeds = el('g', { class: 'seeds', 'aria-hidden': 'true' }, g);
      const lid = el('g', { class: 'lid', 'aria-hidden': 'true' }, g);
      const count = el('text', { class: 'count', 'aria-hidden': 'true' }, g);
      const label = el('text', { class: 'label', 'aria-hidden': 'true' }, g);
      // The tooltip of a hole whose move would sow for ever (in the hole only while it is).
      const title = document.createElementNS(SVG, 'title');
      g.addEventListener('click', () => this.choose(i));
      g.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          this.choose(i);
        }
      });
      this.holes.push({ g, ring, pit, seeds, lid, count, label, title, x: 0, y: 0 });
    }
    this.stores = [0, 1].map((side) => {
      const g = el('g', { class: `store store-${side ? 'north' : 'south'}`, 'data-store': SIDES[side] }, svg);
      const box = el('rect', { class: 'pit' }, g);
      const seeds = el('g', { class: 'seeds', 'aria-hidden': 'true' }, g);
      const pill = el('rect', { width: 68, height: 52, rx: 16, class: 'store-pill' }, g);
      const count = el('text', { class: 'count store-count', 'aria-hidden': 'true' }, g);
      const label = el('text', { class: 'label store-label', 'aria-hidden': 'true' }, g);
      return { g, box, pill, seeds, count, label, x: 0, y: 0 };
    });
    const hand = el('g', { class: 'hand', 'aria-hidden': 'true' }, svg);
    el('circle', { r: 27, class: 'palm' }, hand);
    this.handText = el('text', { class: 'hand-count', y: 9 }, hand);
    this.hand = hand;
    this.host.replaceChildren(svg);
    // Upright phones get the compact geometry (held sideways, the wide one fills the width);
    // it follows the window's shape.
    this.narrow = window.matchMedia('(max-width: 600px) and (orientation: portrait)');
    this.onNarrow = () => this.layout();
    this.narrow.addEventListener('change', this.onNarrow);
    this.layout();
  }

  /**
   * Lets the board go (its game view closed): the listener on the window's shape is removed, so
   * an old board is neither kept alive nor laid out again on a resize.
   */
  destroy() {
    this.narrow.removeEventListener('change', this.onNarrow);
  }

  /** Places holes and stores for the current point of view. */
  layout() {
    const near = this.view;
    const compact = this.narrow.matches;
    const G = compact ? GEOMETRY.compact : GEOMETRY.wide;
    this.geometry = G;
    this.svg.setAttribute('viewBox', `0 0 ${G.W} ${G.H}`);
    this.svg.classList.toggle('compact', compact);
    this.wood.setAttribute('x', G.wood.x);
    this.wood.setAttribute('y', G.wood.y);
    this.wood.setAttribute('width', G.wood.w);
    this.wood.setAttribute('height', G.wood.h);
    const COL_X = G.colX;
    const ROW_Y = G.rowY;
    const COUNT_Y = G.countY;
    const LETTER_Y = G.letterY;
    const STORE = G.store;
    for (let i = 0; i < 14; i++) {
      const h = this.holes[i];
      const own = ownerOf(i);
      const k = i % 7; // from the owner's left
      const isNear = own === near;
      // The near row runs left to right from its owner's left; the far row is reversed.
      h.x = isNear ? COL_X(k) : COL_X(6 - k);
      h.y = isNear ? ROW_Y.near : ROW_Y.far;
      h.g.setAttribute('transform', `translate(${h.x},${h.y})`);
      h.count.setAttribute('y', (isNear ? COUNT_Y.near : COUNT_Y.far) - h.y + 12);
      h.label.setAttribute('y', (isNear ? LETTER_Y.near : LETTER_Y.far) - h.y + 8);
      h.label.textContent = LETTERS[i];
      h.g.classList.toggle('near', isNear);
    }
    // Each player's store at their right: the near player's on the right.
    // Compact: each player's store is a bar on their side of the board.
    this.stores.forEach((s, side) => {
      const right = side === near;
      s.box.setAttribute('width', STORE.w);
      s.box.setAttribute('height', STORE.h);
      s.box.setAttribute('rx', STORE.rx);
      if (compact) {
        s.x = (G.W - STORE.w) / 2;
        s.y = right ? G.storeY.near : G.storeY.far;
        s.label.setAttribute('x', 24);
        s.label.setAttribute('y', STORE.h / 2 + 9);
        s.label.style.textAnchor = 'start';
        s.pill.setAttribute('x', STORE.w - 80);
        s.pill.setAttribute('y', (STORE.h - 52) / 2);
        s.count.setAttribute('x', STORE.w - 46);
        s.count.setAttribute('y', STORE.h / 2 + 12);
      } else {
        s.x = right ? G.W - 30 - STORE.w : 30;
        s.y = STORE.y;
        s.label.setAttribute('x', STORE.w / 2);
        s.label.setAttribute('y', COUNT_Y.far - STORE.y + 4);
        s.label.style.textAnchor = 'middle';
        s.pill.setAttribute('x', 14);
        s.pill.setAttribute('y', STORE.h / 2 - 30);
        s.count.setAttribute('x', STORE.w / 2);
        s.count.setAttribute('y', STORE.h / 2 + 10);
      }
      s.g.setAttribute('transform', `translate(${s.x},${s.y})`);
    });
    this.render();
  }

  setView(side) {
    this.view = side;
    this.layout();
  }

  setNames(names) {
    this.names = names;
    this.render();
  }

  /**
   * Sets the holes that respond to clicks and keys (letters), none when empty, and the holes
   * of the player to move whose move would sow for ever (`endless`: marked and labelled so).
   */
  setLegal(letters, endless = []) {
    this.legal = new Set(letters || []);
    this.endless = new Set(endless || []);
    this.render();
  }

  /** A hole clicked: `onPlay` for a legal one, else `onOther` (the page may say why). */
  choose(i) {
    if (this.legal.has(LETTERS[i])) this.onPlay(LETTERS[i]);
    else this.onOther(LETTERS[i]);
  }

  /** Draws the model; `fresh` marks the hole that just got a seed. */
  render(model = this.model, fresh = -1) {
    this.model = model;
    for (let i = 0; i < 14; i++) this.renderHole(i, i === fresh);
    this.stores.forEach((s, side) => {
      const n = model.stores[side];
      s.count.textContent = String(n);
      s.label.textContent = this.names[side];
      s.g.setAttribute('aria-label', `${storeName(this.names[side], SIDES[side])}, ${n} seed${n === 1 ? '' : 's'}`);
      s.g.setAttribute('role', 'img');
      this.drawStoreSeeds(s, n);
    });
  }

  drawStoreSeeds(s, n) {
    s.seeds.replaceChildren();
    const G = this.geometry;
    if (G === GEOMETRY.compact) {
      // A bar: seeds in two rows between the name and the count.
      const shown = Math.min(n, 54);
      for (let i = 0; i < shown; i++) {
        el('circle', {
          cx: 240 + Math.floor(i / 2) * 15,
          cy: G.store.h / 2 + (i % 2 ? 12 : -12),
          r: 8,
          fill: SEED_FILLS[Math.floor(jitter(i, 91) * SEED_FILLS.length)],
          class: 'seed',
        }, s.seeds);
      }
      return;
    }
    // Two stacked circles fill the tall store.
    const top = el('g', {}, s.seeds);
    const bottom = el('g', {}, s.seeds);
    const half = Math.ceil(Math.min(n, 2 * MAX_DRAWN) / 2);
    drawSeeds(top, half, G.store.w / 2, G.store.h * 0.2, 40, 91);
    drawSeeds(bottom, Math.min(n, 2 * MAX_DRAWN) - half, G.store.w / 2, G.store.h * 0.8, 40, 93);
  }

  renderHole(i, fresh = false) {
    const h = this.holes[i];
    const n = this.model.board[i];
    const closed = this.model.closed[i];
    const legal = this.legal.has(LETTERS[i]);
    const endless = !legal && !closed && n > 0 && this.endless.has(LETTERS[i]);
    h.g.classList.toggle('closed', closed);
    h.g.classList.toggle('legal', legal);
    h.g.classList.toggle('endless', endless);
    h.g.setAttribute('data-count', String(n));
    h.count.textContent = closed ? '' : String(n);
    const who = SIDES[ownerOf(i)];
    const name = `Hole ${LETTERS[i]} (${who})`;
    h.g.setAttribute(
      'aria-label',
      closed
        ? `${name}, closed`
        : `${name}, ${n} seed${n === 1 ? '' : 's'}${legal ? ', playable' : endless ? ', not playable: it would sow for ever' : ''}`,
    );
    // A pointer's tooltip says why a hole holding seeds is not ringed.
    h.title.textContent = endless ? `${LETTERS[i]} would sow for ever: not a legal move` : '';
    if (endless) h.g.prepend(h.title);
    else h.title.remove();
    if (legal) {
      h.g.setAttribute('tabindex', '0');
      h.g.setAttribute('role', 'button');
      h.g.removeAttribute('aria-disabled');
    } else if (this.busy && document.activeElement === h.g) {
      // The hole with the focus (just played, say) keeps it while the board is busy: it says it
      // cannot be played now, and the focus never falls to the page.
      h.g.setAttribute('tabindex', '-1');
      h.g.setAttribute('aria-disabled', 'true');
    } else {
      h.g.removeAttribute('tabindex');
      h.g.removeAttribute('aria-disabled');
      h.g.setAttribute('role', 'img');
    }
    h.lid.replaceChildren();
    if (closed) {
      el('circle', { r: HOLE_R - 4, class: 'lid-disc' }, h.lid);
      el('path', { d: 'M-24,-24L24,24M24,-24L-24,24', class: 'lid-x' }, h.lid);
      h.seeds.replaceChildren();
    } else {
      drawSeeds(h.seeds, n, 0, 0, HOLE_R - 4, i * 17, fresh);
    }
  }

  /** Removes every transient highlight. */
  clearMarks(...names) {
    const all = names.length ? names : ['lifted', 'target', 'stop', 'taken', 'four', 'hint', 'last', 'pending', 'missed'];
    for (const h of this.holes) h.g.classList.remove(...all);
    for (const s of this.stores) s.g.classList.remove('gain');
  }

  mark(i, cls, on = true) {
    this.holes[i].g.classList.toggle(cls, on);
  }

  focusHole(letter) {
    const i = holeIndex(letter);
    if (i >= 0) this.holes[i].g.focus();
  }

  showHand(i, seeds, ms) {
    const h = this.holes[i];
    const dy = h.g.classList.contains('near') ? -HOLE_R - 4 : HOLE_R + 4;
    // A hand that was hidden appears at once where the seeds are lifted.
    const shown = this.hand.classList.contains('shown');
    this.hand.style.transitionDuration = `${shown ? Math.max(0, ms) : 0}ms`;
    this.hand.style.transform = `translate(${h.x}px, ${h.y + dy * 0.9}px)`;
    this.handText.textContent = String(seeds);
    this.hand.classList.toggle('shown', seeds > 0);
  }

  hideHand() {
    this.hand.classList.remove('shown');
  }

  /** The SVG element (for screenshots and tests). */
  get element() {
    return this.svg;
  }
}

/** Seeds per hole of each game (for laying out a refill while animating). */
export const SEEDS_PER_HOLE = { 'walak-pussa': 4, 'raja-pasu': 7, 'pasu-pondi': 5, 'pasu-pondi-6': 6 };

/**
 * One caption per event, as a player would say it. `names` are what the page calls the two
 * players (South's first): "You" takes the plain verb ("You lift A") and is "you" after a colon.
 */
export function caption(ev, mover, names = SIDES) {
  const name = (s) => names[sideNum(s)] || String(s);
  // "<who> <verb>s", or "You <verb>" (`first`: at the start of the caption).
  const says = (s, verb, first = true) => {
    const n = name(s);
    if (n === 'You') return `${first ? 'You' : 'you'} ${verb.replace(/s$/, '')}`;
    return `${n} ${verb}`;
  };
  const mid = (s) => (name(s) === 'You' ? 'you' : name(s));
  switch (ev.type) {
    case 'lift':
      return ev.relay
        ? `Relay: lift ${ev.hole} (${ev.seeds})`
        : `${says(mover, 'lifts')} ${ev.hole} (${ev.seeds})`;
    case 'drop':
      return null;
    case 'four':
      return `Four in ${ev.hole}: ${says(ev.owner, 'takes', false)} 4`;
    case 'stop':
      return `${ev.empty} is empty: sowing ends`;
    case 'capture':
      return ev.chained
        ? `Necklace: ${says(ev.by, 'takes', false)} ${ev.seeds} from ${ev.hole} too`
        : `${says(ev.by, 'takes')} ${ev.seeds} from ${ev.hole}`;
    case 'round_end':
      return `Round over (${reasonText(ev.reason, names)}): ${sweepText(ev.reason, ev.swept, names, false)}`;
    case 'refill':
      return `Round ${ev.round}: ${says('S', 'fills', false)} ${ev.filled[0]} holes, ${mid('N')} ${ev.filled[1]}; ${says(ev.starter, 'starts', false)}`;
    case 'match_end':
      return ev.winner && sideNum(ev.winner) >= 0 ? `${says(ev.winner, 'wins')}` : 'A draw';
    default:
      return null;
  }
}

/**
 * A store's name for screen readers: "Your store (South)", "Computer's store (North)",
 * "South's store" (`name`: what the page calls the side; `side`: "South" or "North").
 */
export function storeName(name, side) {
  if (name === 'You') return `Your store (${side})`;
  return name === side ? `${side}'s store` : `${name}'s store (${side})`;
}

/**
 * Who takes the seeds left on the board when a round ends (the *sweep*, docs/rules.md "The end
 * of a round"), from the round's `reason` and `swept` (`[South, North]`, as the server's trace
 * and round results give them): "North takes the 3 seeds left on the board" when one player
 * takes them all (the player to move could not move, in Walak-pussa and Raja Pasu), else "each
 * player takes their own row: South 2, North 5". `first`: at the start of a sentence.
 */
export function sweepText(reason, swept, names = SIDES, first = true) {
  const [s, n] = swept || [0, 0];
  const total = s + n;
  if (!total) return `${first ? 'No' : 'no'} seeds are left on the board`;
  const who = (i) => names[i] || SIDES[i];
  const mid = (i) => (who(i) === 'You' ? 'you' : who(i));
  // The player who could not move took nothing while the other took seeds: the other took them
  // all (where each takes their own row, the stuck player's row holds the endless holes' seeds).
  const stuck = reason && reason.kind === 'no_legal_move' ? sideNum(reason.stuck) : -1;
  if (stuck >= 0 && swept[stuck] === 0) {
    const taker = 1 - stuck;
    const name = first ? who(taker) : mid(taker);
    const verb = who(taker) === 'You' ? 'take' : 'takes';
    return `${name} ${verb} the ${total} seed${total === 1 ? '' : 's'} left on the board`;
  }
  return `${first ? 'Each' : 'each'} player takes their own row: ${mid(0)} ${s}, ${mid(1)} ${n}`;
}

/** Why a round ended, in words (`names`: what the page calls South and North). */
export function reasonText(reason, names = SIDES) {
  if (!reason) return '';
  switch (reason.kind) {
    case 'one_row':
      return 'all seeds in one row';
    case 'repetition':
      return 'the position repeated';
    case 'no_legal_move': {
      const who = names[sideNum(reason.stuck)] === 'You' ? 'you cannot move' : `${names[sideNum(reason.stuck)] || reason.stuck} cannot move`;
      // The holes left could only be sown for ever (`endless`, absent when there are none).
      const endless = reason.endless || [];
      if (!endless.length) return who;
      if (endless.length === 1) return `${who}: ${endless[0]} would sow for ever`;
      return `${who}: ${endless.slice(0, -1).join(', ')} and ${endless[endless.length - 1]} would each sow for ever`;
    }
    default:
      return reason.kind;
  }
}

const SPEEDS = { slow: { drop: 480, pause: 1100 }, normal: { drop: 170, pause: 560 }, fast: { drop: 50, pause: 220 } };

/**
 * Replays a move's trace on the board, starting from `before` (the model before the move).
 * Resolves when done or skipped; the caller then draws the server's final state.
 */
export class Animator {
  constructor(board, captionEl) {
    this.board = board;
    this.captionEl = captionEl;
    this.speed = 'normal';
    this.skipping = false;
    this.running = false;
    this.wake = null;
    // What the page calls South and North in the captions ("You", "Computer"…).
    this.names = SIDES;
    // Called after each event with the event and the board model drawn (the scoreboard follows).
    this.onStep = null;
    // The sounds (sound.js) played with the events, or null for none.
    this.sound = null;
  }

  skip() {
    this.skipping = true;
    if (this.wake) this.wake();
  }

  sleep(ms) {
    if (this.skipping || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = null;
        resolve();
      };
    });
  }

  say(text) {
    if (text && this.captionEl) this.captionEl.textContent = text;
  }

  /**
   * @param {object} before  board model before the move
   * @param {Array} events   the trace
   * @param {string} mover   'South' | 'North'
   * @param {string} game    game id (for refills)
   */
  async play(before, events, mover, game) {
    const b = this.board;
    const m = cloneModel(before);
    // A skip asked for during an earlier move of the same answer still holds (the caller ends
    // it with `endSkip` once the whole answer is shown).
    if (this.speed === 'off') this.skipping = true;
    // A move not animated still sounds once.
    if (this.skipping) this.sound?.playMove(events);
    this.running = true;
    const idx = (l) => holeIndex(l);
    let hand = 0;
    b.clearMarks();
    b.render(m);
    try {
      for (const ev of events) {
        if (this.skipping) break;
        // Read the speed at every event: a change applies at once, mid-move.
        const sp = SPEEDS[this.speed] || SPEEDS.normal;
        const text = caption(ev, mover, this.names);
        if (text) this.say(text);
        this.sound?.play(ev.type);
        switch (ev.type) {
          case 'lift': {
            const i = idx(ev.hole);
            b.clearMarks('lifted', 'target', 'stop');
            // First the hole to be lifted lights up with its seeds, then they go into the hand.
            b.mark(i, 'lifted');
            if (ev.relay) await this.sleep(sp.pause * 0.5);
            m.board[i] = 0;
            hand = ev.seeds;
            b.showHand(i, hand, sp.drop);
            b.render(m);
            await this.sleep(ev.relay ? sp.pause * 0.5 : sp.pause * 0.7);
            break;
          }
          case 'drop': {
            const i = idx(ev.hole);
            hand = Math.max(0, hand - 1);
            m.board[i] = ev.now;
            b.clearMarks('target');
            b.mark(i, 'target');
            b.showHand(i, hand, sp.drop * 0.8);
            b.render(m, i);
            await this.sleep(sp.drop);
            break;
          }
          case 'four': {
            const i = idx(ev.hole);
            const side = sideNum(ev.owner);
            b.mark(i, 'four');
            await this.sleep(sp.pause * 0.4);
            m.board[i] = Math.max(0, m.board[i] - 4);
            m.stores[side] += 4;
            b.mark(i, 'four');
            b.render(m);
            this.step(ev, m);
            b.stores[side].g.classList.add('gain');
            await this.sleep(sp.pause);
            b.mark(i, 'four', false);
            b.stores[side].g.classList.remove('gain');
            break;
          }
          case 'stop': {
            b.hideHand();
            b.clearMarks('target');
            b.mark(idx(ev.last), 'target');
            b.mark(idx(ev.empty), 'stop');
            await this.sleep(sp.pause);
            break;
          }
          case 'capture': {
            const i = idx(ev.hole);
            const side = sideNum(ev.by);
            b.mark(i, 'taken');
            await this.sleep(sp.pause * 0.5);
            m.board[i] = 0;
            m.stores[side] += ev.seeds;
            b.mark(i, 'taken');
            b.render(m);
            this.step(ev, m);
            b.stores[side].g.classList.add('gain');
            await this.sleep(sp.pause * 1.2);
            b.stores[side].g.classList.remove('gain');
            break;
          }
          case 'round_end': {
            b.hideHand();
            // Every seed left leaves the board: to its row's owner or all to one player.
            m.board.fill(0);
            m.stores[0] += ev.swept[0];
            m.stores[1] += ev.swept[1];
            b.clearMarks();
            b.render(m);
            this.step(ev, m);
            await this.sleep(sp.pause * 1.5);
            break;
          }
          case 'refill': {
            const sph = SEEDS_PER_HOLE[game] || 4;
            // `closed`: the indices (0-13) of the closed holes.
            const shut = new Set(ev.closed);
            for (let i = 0; i < 14; i++) {
              const closed = shut.has(i);
              m.closed[i] = closed;
              m.board[i] = closed ? 0 : sph;
            }
            m.stores = [...ev.remainder];
            b.clearMarks();
            b.render(m);
            this.step(ev, m);
            await this.sleep(sp.pause * 1.5);
            break;
          }
          case 'match_end':
            await this.sleep(sp.pause);
            break;
          default:
            break;
        }
      }
    } finally {
      b.hideHand();
      b.clearMarks('lifted', 'target', 'stop', 'taken', 'four');
      this.running = false;
    }
  }

  /** Tells `onStep` (if any) that `ev` is drawn on the board as `m`. */
  step(ev, m) {
    if (this.onStep) this.onStep(ev, m);
  }

  /** Ends a skip: the next answer animates again. */
  endSkip() {
    this.skipping = false;
  }
}
