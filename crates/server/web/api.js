// The server's JSON API and WebSocket (see docs/api.md), and the seats this browser holds.

import { storage } from './storage.js';

/** An error answer from the server: `status` and the server's message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A move not answered in this time is given up (and sent again once the connection is back). */
export const MOVE_TIMEOUT_MS = 6000;
/** A join not answered in this time is given up and asked again. */
export const JOIN_TIMEOUT_MS = 8000;

/**
 * The answer says nothing about the request itself: no answer, a gateway's or proxy's error
 * page (5xx: the server restarting behind nginx), or "too many requests" (429). Worth asking
 * again, unlike a refusal (403, 404, 409, 422…).
 */
export function noAnswerYet(e) {
  return e instanceof ApiError && (e.status === 0 || e.status === 429 || e.status >= 500);
}

async function call(method, path, body, timeoutMs = 0) {
  const opts = { method, headers: {} };
  if (timeoutMs) opts.signal = AbortSignal.timeout(timeoutMs);
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    if (e.name === 'TimeoutError') throw new ApiError(0, 'no answer from the server');
    throw new ApiError(0, `cannot reach the server (${e.message})`);
  }
  const type = res.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) {
    const msg = data && typeof data === 'object' && data.error ? data.error : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, msg);
  }
  return data;
}

export const api = {
  meta: () => call('GET', 'api/meta'),
  // Whether a request reaches the server (the page's check after one found none): `api/meta`,
  // given up after 4 s.
  reach: () => call('GET', 'api/meta', undefined, 4000),
  rules: (game) => call('GET', `api/rules/${encodeURIComponent(game)}`),
  create: (req) => call('POST', 'api/games', req),
  // A join not answered in time is given up and asked again (the server answers a join asked
  // again with the invite that took the seat with that seat: it is never taken twice).
  join: (id, invite) => call('POST', `api/games/${encodeURIComponent(id)}/join`, { invite }, JOIN_TIMEOUT_MS),
  state: (id) => call('GET', `api/games/${encodeURIComponent(id)}`),
  move: (id, move, token, expectedPly) =>
    call('POST', `api/games/${encodeURIComponent(id)}/moves`, { move, token, expected_ply: expectedPly }, MOVE_TIMEOUT_MS),
  undo: (id, token, expectedPly) =>
    call('POST', `api/games/${encodeURIComponent(id)}/undo`, { token, expected_ply: expectedPly }),
  // Every seat's token goes in a body (or, for the WebSocket, a header), never in a URL: URLs
  // end up in the access logs of the proxies on the way.
  hint: (id, token) => call('POST', `api/games/${encodeURIComponent(id)}/hint`, { token }),
  resign: (id, token) => call('POST', `api/games/${encodeURIComponent(id)}/resign`, { token }),
  abort: (id, token) => call('POST', `api/games/${encodeURIComponent(id)}/abort`, { token }),
  draw: (id, token, offer) => call('POST', `api/games/${encodeURIComponent(id)}/draw`, { token, offer }),
  takeback: (id, token, offer, expectedPly) =>
    call('POST', `api/games/${encodeURIComponent(id)}/takeback`, { token, offer, expected_ply: expectedPly }),
  // Accepting answers the friend's standing offer and nothing else: once it is withdrawn the
  // server refuses (409) rather than taking the request as an offer of one's own.
  acceptDraw: (id, token) => call('POST', `api/games/${encodeURIComponent(id)}/draw`, { token, accept: true }),
  acceptTakeback: (id, token, expectedPly) =>
    call('POST', `api/games/${encodeURIComponent(id)}/takeback`, { token, accept: true, expected_ply: expectedPly }),
  claim: (id, token, result) => call('POST', `api/games/${encodeURIComponent(id)}/claim`, { token, result }),
  rematch: (id, token) => call('POST', `api/games/${encodeURIComponent(id)}/rematch`, { token }),
  importRecord: (record, opponent, seat) => call('POST', 'api/games/import', { record, opponent, seat }),
  list: (finished, limit = 50, before = null) =>
    call(
      'GET',
      `api/games?limit=${limit}${finished === undefined ? '' : `&finished=${finished}`}${before ? `&before=${encodeURIComponent(before)}` : ''}`,
    ),
  positions: (id) => call('GET', `api/games/${encodeURIComponent(id)}/positions`),
  recordUrl: (id) => `api/games/${encodeURIComponent(id)}/record`,
};

/**
 * The address of the page itself with `search` (`?game=ID`, `?game=ID#invite=T`), for the links
 * the page gives out: relative to where the page is served, so that behind a proxy that maps a
 * path prefix (`/pussa/`) to the server the links keep the prefix.
 */
export function pageLink(search) {
  return new URL(`./${search}`, location.href).href;
}

/** Side letters to indices: "S"/"South" → 0, "N"/"North" → 1, anything else → -1. */
export function sideIndex(s) {
  if (s === 'S' || s === 'South' || s === 0) return 0;
  if (s === 'N' || s === 'North' || s === 1) return 1;
  return -1;
}

export const SIDE_NAME = ['South', 'North'];
export const SIDE_LETTER = ['S', 'N'];

const SEATS_KEY = 'pussa.seats';

/**
 * The seats (token and sides) this browser holds, by game id, in local storage; a seat the
 * storage refuses (site data blocked, quota full) is kept in memory for as long as the page.
 */
export const seats = {
  /**
   * Every seat held, by game id. A stored value that is not a plain object (an old or foreign
   * value, a hand edit) counts as none, and the next seat kept overwrites it; an entry of the
   * wrong shape (no token, sides not a list) is left out.
   */
  all() {
    let kept;
    try {
      kept = JSON.parse(storage.get(SEATS_KEY) || '{}');
    } catch {
      return {};
    }
    if (!kept || typeof kept !== 'object' || Array.isArray(kept)) return {};
    const all = {};
    for (const [id, seat] of Object.entries(kept)) {
      if (seat && typeof seat === 'object' && typeof seat.token === 'string' && Array.isArray(seat.seats)) all[id] = seat;
    }
    return all;
  },
  get(id) {
    const all = this.all();
    return Object.hasOwn(all, id) ? all[id] : null;
  },
  /**
   * Keeps `seat` for game `id`: true when stored for good, false when the browser's storage
   * refused it (the seat is kept for as long as the page, and a reload loses it). Never throws:
   * a seat the server granted is never thrown away.
   */
  put(id, seat) {
    const all = this.all();
    // `invite`: the invite token this seat was taken with (a friend's seat), so that opening
    // the same link again is recognised as theirs.
    all[id] = { token: seat.token, seats: seat.seats, saved: Date.now(), ...(seat.invite ? { invite: seat.invite } : {}) };
    return storage.set(SEATS_KEY, JSON.stringify(all));
  },
  /**
   * Marks the seat of game `id` as one of a game that is over (not asked for again), or, with
   * `over` false, as one going on again (a finished game reopened by an undo).
   */
  markOver(id, over = true) {
    const all = this.all();
    if (!Object.hasOwn(all, id) || !!all[id].over === over) return;
    if (over) all[id].over = true;
    else delete all[id].over;
    storage.set(SEATS_KEY, JSON.stringify(all));
  },
  /**
   * Forgets the seat of game `id`: the server refused its token, or the player removed it.
   * Never throws.
   */
  remove(id) {
    const all = this.all();
    if (!(id in all)) return;
    delete all[id];
    storage.set(SEATS_KEY, JSON.stringify(all));
  },
};

/**
 * A WebSocket to one game that reconnects after a drop. `onMessage` gets each parsed message;
 * `onStatus` gets 'open' | 'closed', or 'refused' and the server's reason when it refuses the
 * connection (see `probe`). With `token` (a seat this browser holds) every connection
 * carries it in its subprotocols (`pussa`, `pussa.token.TOKEN`: a header, never the URL, which
 * proxies log), which seats it from the start, so the other player sees this one present; only
 * a connection made without it (a token that is no subprotocol value, or one refused at the
 * upgrade) says a hello with the token instead.
 * Should the server refuse the token (its hello answered `error` 403: the token holds no seat
 * in the game, a stale seat), the socket forgets it, goes on as a watcher's and tells
 * `onSeatLost` (with the server's message) once.
 *
 * The page's own heartbeat: a `ping` every `PING_MS`; a connection from which nothing has come
 * for `SILENT_MS` (a network that drops packets without closing anything: Wi-Fi gone, a laptop
 * asleep) counts as lost: 'closed' is reported and a new connection is made at once. The server
 * counts a player silent for 7 s as away, so the next ping is also timed from each pong: a
 * timer set from a message event is not a chained one, which browsers throttle to one wake-up
 * a minute in a tab long in the background (Chrome's intensive throttling), and the player
 * waiting in another tab stays present. A lost connection is tried again on a doubling
 * back-off (0.5 s up to 8 s), except that the browser's `online` event (its network back)
 * makes it again at once (`wake`).
 */
export const PING_MS = 2000;
/** The `req` of the page's hello, by which its answer is known. */
const HELLO_REQ = 'hello';
export const SILENT_MS = 5000;
/** After the network comes back, an open connection not heard from within this is made again. */
export const WAKE_MS = 1500;
/** What a WebSocket subprotocol value may hold (an HTTP token, RFC 9110 §5.6.2). */
const WS_TOKEN_CHARS = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export class GameSocket {
  constructor(id, onMessage, onStatus = () => {}, token = null, onSeatLost = () => {}) {
    this.id = id;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onSeatLost = onSeatLost;
    this.closed = false;
    this.delay = 500;
    this.heard = Date.now();
    this.beat = setInterval(() => this.heartbeat(), PING_MS / 2);
    // The browser says its network is back: reconnect now rather than at the back-off's next
    // try, which may be seconds away (as lichess does).
    this.onOnline = () => this.wake();
    window.addEventListener('online', this.onOnline);
    this.connect();
  }

  /**
   * The network is back (the browser's `online` event): a connection lost or being tried is
   * made again at once, the back-off starting over; an open one is asked for a pong now and,
   * if none comes within `WAKE_MS`, dropped and made again at once (a connection the drop left
   * half-open).
   */
  wake() {
    if (this.closed) return;
    this.delay = 500;
    const ws = this.ws;
    if (ws && ws.readyState === WebSocket.OPEN) {
      const asked = Date.now();
      this.ping(ws);
      clearTimeout(this.wakeCheck);
      this.wakeCheck = setTimeout(() => {
        if (!this.closed && this.ws === ws && this.heard < asked) this.drop(ws, 0);
      }, WAKE_MS);
      return;
    }
    if (ws) {
      // A try made while the network was down: it fails; a new one goes now.
      this.drop(ws, 0);
      return;
    }
    clearTimeout(this.retry);
    this.connect();
  }

  /**
   * A request of the page found no server (no answer), or the server said it does not hear
   * this page: the connection may be gone without the socket knowing it yet. A ping goes now;
   * should its answer (or that of a later ping) take `PING_MS` or more, the connection was down
   * and is back: 'open' is reported again (a move kept unsent goes again). A prompt answer means
   * the socket never lost the server: nothing is reported. A connection lost meanwhile reports
   * 'open' when it is made again anyway.
   *
   * Returns a promise that resolves once the connection is known live: the answer to this ping
   * (or to a later one) has come, prompt or late, or a new connection has opened. The server
   * has heard this page then (a seat's connection counts as here again).
   */
  confirm() {
    if (this.closed) return new Promise(() => {});
    this.doubtSince = Date.now();
    const live = new Promise((resolve) => (this.confirming ||= []).push(resolve));
    const ws = this.ws;
    if (ws && ws.readyState === WebSocket.OPEN) this.ping(ws);
    return live;
  }

  /** The connection is known live: every `confirm()` waiting is answered. */
  confirmed() {
    const waiting = this.confirming || [];
    this.confirming = [];
    for (const resolve of waiting) resolve();
  }

  ping(ws) {
    this.pinged = Date.now();
    try {
      ws.send(JSON.stringify({ type: 'ping', req: this.pinged }));
    } catch {
      this.drop(ws);
    }
  }

  heartbeat() {
    const ws = this.ws;
    if (this.closed || !ws || ws.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.heard > SILENT_MS) {
      // Silence: drop this connection (its close may take minutes to come) and make a new one.
      this.drop(ws);
      return;
    }
    if (Date.now() - (this.pinged || 0) >= PING_MS) this.ping(ws);
  }

  /** Gives up connection `ws` and tries again after `delay` ms (the back-off's by default). */
  drop(ws, delay = this.delay) {
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    try {
      ws.close();
    } catch {
      /* already gone */
    }
    if (this.ws !== ws) return;
    this.ws = null;
    this.onStatus('closed');
    if (this.closed) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.connect(), delay);
    if (delay) this.delay = Math.min(this.delay * 2, 8000);
  }

  connect() {
    if (this.closed) return;

    // A seat's connection carries its token, so the server seats it from the start and always
    // has a place for it, however many watchers there are. Should the token be refused (a
    // stale seat), the next try goes without it and says hello: the hello's answer tells
    // whether the seat is lost (403) or the upgrade failed for another reason (the server
    // was down).
    // The token goes in `Sec-WebSocket-Protocol` (the server answers `pussa`), not in the
    // query: a URL is written to the access log of every proxy on the way. A token that is no
    // valid subprotocol value (a hand-edited storage) is only said in the hello.
    const withToken = !!this.token && !this.tokenRefused && WS_TOKEN_CHARS.test(this.token);
    this.tokenRefused = false;
    // Relative to the page, as every URL the page uses: a page served under a path prefix
    // (`https://club.example.org/pussa/`, behind a proxy) connects under that prefix too.
    const url = new URL(`api/games/${encodeURIComponent(this.id)}/ws`, location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.hash = '';
    const ws = withToken ? new WebSocket(url.href, ['pussa', `pussa.token.${this.token}`]) : new WebSocket(url.href);
    let opened = false;
    this.ws = ws;
    this.heard = Date.now();
    ws.onopen = () => {
      opened = true;
      this.heard = Date.now();
      this.doubtSince = 0;
      this.confirmed();
      // The subprotocol has seated this connection already: no hello, so the token is said
      // once, in the handshake. A hello would repeat it in a message, which the server's
      // WebSocket library writes out at its trace level.
      if (this.token && !withToken) ws.send(JSON.stringify({ type: 'hello', token: this.token, req: HELLO_REQ }));
      this.onStatus('open');
    };
    ws.onmessage = (e) => {
      this.heard = Date.now();
      // A connection that carries messages again is a good one: the next drop retries soon.
      this.delay = 500;
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg.type === 'pong') {
        clearTimeout(this.nextPing);
        this.nextPing = setTimeout(() => this.heartbeat(), PING_MS);
        // The answer to a ping sent after a request found no server: the connection works.
        if (this.doubtSince && typeof msg.req === 'number' && msg.req >= this.doubtSince) {
          const down = Date.now() - this.doubtSince >= PING_MS;
          this.doubtSince = 0;
          if (down) this.onStatus('open');
          this.confirmed();
        }
        return;
      }
      if (msg.type === 'error' && msg.req === HELLO_REQ && msg.status === 403 && this.token) {
        // The token holds no seat in this game: from now on this is a watcher's connection.
        this.token = null;
        this.onSeatLost(msg.message || 'this token holds no seat in the game');
        return;
      }
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (withToken && !opened) this.tokenRefused = true;
      if (!opened) this.probe(url);
      this.drop(ws);
    };
  }

  /**
   * A browser does not tell a page why a WebSocket upgrade was refused, so after one that never
   * opened the page asks the same URL with a plain GET (`?probe=1`): the server answers it as it
   * would a watcher's upgrade (the next try here goes without the token too), with its refusal
   * (429 too many watchers or over the address's share, 503 the server full, 404 no such game)
   * or 204 when a connection would be taken. A refusal is told through
   * `onStatus('refused', message)`; the page keeps trying with back-off, as for a lost
   * connection, and says 'open' once one is taken.
   */
  probe(wsUrl) {
    const url = new URL(wsUrl.href);
    url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
    url.searchParams.set('probe', '1');
    fetch(url.href, { cache: 'no-store' })
      .then(async (r) => {
        if (this.closed || this.live || r.ok) return;
        let message = `${r.status} ${r.statusText}`;
        try {
          const body = await r.json();
          if (typeof body.error === 'string') message = body.error;
        } catch {
          /* not JSON: the status says it */
        }
        if (!this.closed && !this.live) this.onStatus('refused', message);
      })
      .catch(() => {
        /* no answer: the server is down, which 'reconnecting…' says already */
      });
  }

  /** The connection is open and has been heard from lately. */
  get live() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN && Date.now() - this.heard <= SILENT_MS;
  }

  close() {
    this.closed = true;
    clearInterval(this.beat);
    clearTimeout(this.nextPing);
    clearTimeout(this.retry);
    clearTimeout(this.wakeCheck);
    window.removeEventListener('online', this.onOnline);
    if (this.ws) {
      const ws = this.ws;
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      ws.close();
    }
  }
}
