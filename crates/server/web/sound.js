// The board's sounds, made by the browser itself (Web Audio: no sound files, nothing fetched).
// A light tick for every seed dropped, a knock when a hole is lifted, a chime when seeds are
// taken (a capture or a four), a falling pair of notes when a round ends and three rising ones
// when the match does. With no animation, each move gets one tick (and the chime of its
// captures), as a move's sound in lichess: the player's move and the computer's reply shown
// together sound one after the other, spaced so that both are heard.
//
// Browsers let a page play sound only after the player touched it: the audio starts at the first
// key or tap (`unlock`). The choice (on, the default, or off) is kept in this browser.

import { storage } from './storage.js';

const KEY = 'pussa.sound';

/** The sounds of each trace event: [frequency Hz, length s, wave, loudness, delay s] tones. */
const TONES = {
  lift: [[196, 0.09, 'triangle', 0.16, 0]],
  drop: [[880, 0.035, 'sine', 0.07, 0]],
  capture: [
    [659, 0.16, 'sine', 0.12, 0],
    [988, 0.22, 'sine', 0.1, 0.07],
  ],
  four: [
    [587, 0.14, 'sine', 0.12, 0],
    [784, 0.2, 'sine', 0.1, 0.06],
  ],
  round_end: [
    [523, 0.25, 'triangle', 0.12, 0],
    [392, 0.35, 'triangle', 0.12, 0.18],
  ],
  match_end: [
    [523, 0.2, 'triangle', 0.12, 0],
    [659, 0.2, 'triangle', 0.12, 0.16],
    [784, 0.45, 'triangle', 0.12, 0.32],
  ],
  move: [[660, 0.06, 'triangle', 0.12, 0]],
};

export class Sounds {
  constructor() {
    /** @type {AudioContext|null} made at the first touch, when sound is on */
    this.ctx = null;
    this.on = storage.get(KEY) !== 'off';
  }

  /** Turns the sounds on or off, kept in this browser. Called from a click, so audio may start. */
  setOn(on) {
    this.on = Boolean(on);
    storage.set(KEY, this.on ? 'on' : 'off');
    if (this.on) this.unlock();
    else if (this.ctx && this.ctx.state === 'running') this.ctx.suspend().catch(() => {});
  }

  /**
   * Makes (or resumes) the audio context: call it from a key press, tap or click. Does nothing
   * with sound off or in a browser without Web Audio.
   */
  unlock() {
    if (!this.on) return;
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      if (!this.ctx) this.ctx = new Ctx();
      if (this.ctx.state === 'suspended') this.ctx.resume().catch(() => {});
    } catch {
      this.ctx = null;
    }
  }

  /**
   * Plays the sound of `kind` (a trace event's type, or 'move') `after` seconds from now, if
   * sound is on and the browser allows it.
   */
  play(kind, after = 0) {
    const tones = TONES[kind];
    if (!this.on || !this.ctx || !tones || this.ctx.state === 'closed') return;
    const now = this.ctx.currentTime + after;
    for (const [freq, length, wave, loud, delay] of tones) {
      try {
        const osc = this.ctx.createOscillator();
        const gain = this.ctx.createGain();
        osc.type = wave;
        osc.frequency.value = freq;
        const t = now + delay;
        // A quick rise and a falling tail: no click at either end.
        gain.gain.setValueAtTime(0.0001, t);
        gain.gain.exponentialRampToValueAtTime(loud, t + 0.008);
        gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
        osc.connect(gain).connect(this.ctx.destination);
        osc.start(t);
        osc.stop(t + length + 0.02);
      } catch {
        return;
      }
    }
  }

  /**
   * The sound of a whole move shown without animation, `after` seconds from now: one tick, then
   * a chime if it took seeds, and the round's or match's end if it ended one. Returns how long
   * it lasts (s), so that the next move's sound can follow it.
   */
  playMove(events, after = 0) {
    this.play('move', after);
    let span = toneSpan('move');
    const kinds = new Set((events || []).map((e) => e.type));
    const last = ['match_end', 'round_end', 'capture', 'four'].find((k) => kinds.has(k));
    if (last) {
      this.play(last, after + 0.08);
      span = Math.max(span, 0.08 + toneSpan(last));
    }
    return span;
  }

  /**
   * The sounds of several moves shown at once without animation (the player's move and the
   * computer's reply): one sound a move, each after the last has ended and a short pause, so
   * that each move is heard. `traces` holds each move's trace events.
   */
  playMoves(traces) {
    let at = 0;
    for (const events of traces) at += this.playMove(events, at) + MOVE_GAP;
  }
}

/** The pause (s) between the sounds of two moves shown at once. */
export const MOVE_GAP = 0.18;

/** How long the sound of `kind` lasts (s): its last tone's end. */
function toneSpan(kind) {
  return Math.max(...TONES[kind].map(([, length, , , delay]) => delay + length));
}

/** The page's one set of sounds. */
export const sounds = new Sounds();
