// How long the page waits after a key before it asks for a translation: a
// pause counts as "stopped typing" when it is longer than twice this
// typist's usual gap between keys (the median of the last few gaps), within
// [PAUSE_MIN_MS, PAUSE_MAX_MS]. A fixed 400 ms made everyone wait 400 ms
// after the last key, though the server answers a sentence in ~30 ms; a
// fixed short pause would send a request between the keys of a slow typist.
// Gaps longer than PAUSE_MAX_MS are breaks, not rhythm, and are left out;
// with fewer than MIN_GAPS gaps known the page waits PAUSE_MAX_MS.
// A classic script for the page (no build step) and a CommonJS module for
// tests/clients/typing_pause_test.mjs.
"use strict";

const PAUSE_MIN_MS = 150, PAUSE_MAX_MS = 400, KEPT_KEYS = 9, MIN_GAPS = 3;

// The wait after the newest of `keyTimes` (ascending milliseconds of the
// last keys, oldest first).
function typingPause(keyTimes) {
  const gaps = [];
  for (let i = 1; i < keyTimes.length; ++i) {
    const gap = keyTimes[i] - keyTimes[i - 1];
    if (gap <= PAUSE_MAX_MS) gaps.push(gap);
  }
  if (gaps.length < MIN_GAPS) return PAUSE_MAX_MS;
  gaps.sort((a, b) => a - b);
  const median = gaps[gaps.length >> 1];
  return Math.min(PAUSE_MAX_MS, Math.max(PAUSE_MIN_MS, 2 * median));
}

// Records a key at `now` in `keyTimes` (keeping the last KEPT_KEYS) and
// returns the wait before a request.
function keyTyped(keyTimes, now) {
  keyTimes.push(now);
  if (keyTimes.length > KEPT_KEYS) keyTimes.splice(0, keyTimes.length - KEPT_KEYS);
  return typingPause(keyTimes);
}

if (typeof module !== "undefined") module.exports = { typingPause, keyTyped, PAUSE_MIN_MS, PAUSE_MAX_MS };
