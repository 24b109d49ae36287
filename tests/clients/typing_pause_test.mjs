// The page's typing pause (serve/page/typing_pause.js) as a function of the
// keys' times, without a browser: node typing_pause_test.mjs prints "ok" or
// fails with what differed. tests/serve_clients_test.cpp runs it.
import { createRequire } from "node:module";
import assert from "node:assert/strict";

const require = createRequire(import.meta.url);
const { typingPause, keyTyped, PAUSE_MIN_MS, PAUSE_MAX_MS } = require("../../serve/page/typing_pause.js");

const keys = (gaps, start = 1000) => gaps.reduce((times, g) => [...times, times[times.length - 1] + g], [start]);

// Too few keys to know a rhythm: the longest wait.
assert.equal(typingPause([]), PAUSE_MAX_MS);
assert.equal(typingPause(keys([40, 40])), PAUSE_MAX_MS);
// A fast typist (40 ms a key) waits the shortest pause; twice a 100 ms gap is 200 ms.
assert.equal(typingPause(keys([40, 40, 40, 40])), PAUSE_MIN_MS);
assert.equal(typingPause(keys([100, 100, 100, 100])), 200);
// A slow typist (250 ms a key) waits the longest: no request between their keys.
assert.equal(typingPause(keys([250, 250, 250])), PAUSE_MAX_MS);
// The median, not the mean: one hesitation does not stretch the wait.
assert.equal(typingPause(keys([100, 100, 390, 100, 100])), 200);
// Breaks longer than the longest wait are not typing and are left out.
assert.equal(typingPause(keys([5000, 90, 90, 90])), 180);
assert.equal(typingPause(keys([5000, 90, 9000])), PAUSE_MAX_MS);
// keyTyped keeps the last 9 keys: an old slow rhythm gives way to a fast one.
const kept = [];
let t = 0, wait = 0;
for (let i = 0; i < 6; ++i) wait = keyTyped(kept, (t += 180));
assert.equal(wait, 360);
for (let i = 0; i < 8; ++i) wait = keyTyped(kept, (t += 50));
assert.equal(kept.length, 9);
assert.equal(wait, PAUSE_MIN_MS);
console.log("ok");
