// The server's page in Debian's chromium (headless, driven by puppeteer-core):
//   node page_test.mjs PORT CASE_JSON [SCREENSHOT_DIR]
// CASE_JSON: {"source": "de", "target": "en", "text": ..., "expected": the
// command line's translation, "auto_text": a text in another source language,
// "auto_name": that language's name, "hover": a translated word to point at,
// "file": a document to upload, whose progress line and link are recorded}.
// With SCREENSHOT_DIR it stops after drawing page_wide.png and page_phone.png. Prints one JSON object of what it saw;
// tests/serve_models_test.cpp checks it. Every request the page makes is
// watched: one to another host is recorded and refused.
import puppeteer from "puppeteer-core";

const port = process.argv[2];
const c = JSON.parse(process.argv[3]);
const shots = process.argv[4];
const base = `http://127.0.0.1:${port}`;
const out = { foreign: [], translate_requests: 0 };
let fake = null;  // a status the next /translate answers with, for the 429 and 503 states

// The page's clock at its last input event, kept in window.lastInput.
const watchInput = (p) => p.evaluate(() => {
  document.querySelector("#text").addEventListener("input", () => { window.lastInput = performance.now(); }, true);
});
// Milliseconds from the last input event to the last /translate request leaving.
const lastPause = (p) => p.evaluate(() => {
  const calls = performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/translate"));
  return calls[calls.length - 1].startTime - window.lastInput;
});

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 820 });
  await page.setRequestInterception(true);
  page.on("request", (r) => {
    if (!r.url().startsWith(base + "/")) {
      out.foreign.push(r.url());
      return r.abort();
    }
    if (new URL(r.url()).pathname === "/translate") {
      out.translate_requests += 1;
      if (fake) {
        const status = fake;
        fake = null;
        const error = status === 429 ? "Slowdown: 1 per 1 minute" : "The models are still loading.";
        return r.respond({ status, contentType: "application/json", body: JSON.stringify({ error }) });
      }
    }
    r.continue();
  });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {  // the browser's own notes on 4xx/5xx answers are expected here
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text());
  });
  await page.goto(base + "/", { waitUntil: "networkidle0" });
  await page.waitForFunction(() => document.querySelectorAll("#target option").length > 0);
  await watchInput(page);
  out.sources = await page.$$eval("#source option", (os) => os.map((o) => o.value));
  const result = () => page.$eval("#result", (e) => e.textContent);
  const settle = async (previous) => {
    await page.waitForFunction((p) => document.querySelector("#result").textContent !== p, {}, previous);
    await new Promise((r) => setTimeout(r, 600));  // nothing more comes
  };

  // A pair picked, a sentence typed as a person types it.
  await page.select("#source", c.source);
  await page.select("#target", c.target);
  out.translate_requests = 0;
  await page.type("#text", c.text, { delay: 40 });
  await settle("");
  out.typed = await result();
  out.requests_while_typing = out.translate_requests;
  out.typed_pause_ms = await lastPause(page);

  // The alignment: pointing at a translated word lights a source word.
  let word = await page.$("#result .w");
  for (const w of await page.$$("#result .w")) {  // the word CASE_JSON's "hover" names, if any
    if (c.hover && (await w.evaluate((e) => e.textContent)) === c.hover) word = w;
  }
  out.aligned_words = (await page.$$("#result .w")).length;
  if (word) {
    await word.hover();
    out.linked_source = await page.$$eval("#source-words .w.linked", (ws) => ws.map((w) => w.textContent));
  }
  if (shots) {
    await page.screenshot({ path: `${shots}/page_wide.png` });
    await page.setViewport({ width: 390, height: 844 });  // (isMobile would reload the page)
    await page.screenshot({ path: `${shots}/page_phone.png`, fullPage: true });
    console.log(JSON.stringify(out));
    process.exit(0);  // pictures only
  }

  // Swap: the languages and the texts change places.
  const before = await result();
  await page.click("#swap");
  await settle(before);
  out.swapped = {
    source: await page.$eval("#source", (s) => s.value),
    target: await page.$eval("#target", (s) => s.value),
    text: await page.$eval("#text", (t) => t.value),
  };

  // Detection.
  await page.select("#source", "auto");
  await page.$eval("#text", (t) => { t.value = ""; });
  await page.type("#text", c.auto_text);
  // Wait for the detection line to name the language, not for a changed
  // result: the tests' tiny models may translate both texts alike.
  await page.waitForFunction((name) => document.querySelector("#detected").textContent.includes(name), {},
                             c.auto_name);
  out.detected = await page.$eval("#detected", (e) => e.textContent);

  // A busy server, a loading one, and the server's own error.
  for (const status of [429, 503]) {
    await page.$eval("#error", (e) => { e.hidden = true; e.textContent = ""; });
    fake = status;
    await page.type("#text", " ");
    await page.waitForFunction(() => !document.querySelector("#error").hidden);
    out["error_" + status] = await page.$eval("#error", (e) => e.textContent);
    await page.waitForFunction(() => document.querySelector("#error").hidden, { timeout: 10000 }).catch(() => {});
  }
  // A slow typist (250 ms a key) in a new tab: no request between the keys
  // either; then a paste, which is asked for at once.
  const slow = await browser.newPage();
  await slow.goto(base + "/", { waitUntil: "networkidle0" });
  await slow.waitForFunction(() => document.querySelectorAll("#target option").length > 0);
  await slow.select("#source", c.source);
  await slow.select("#target", c.target);
  await watchInput(slow);
  await slow.type("#text", c.text.slice(0, 12), { delay: 250 });
  await slow.waitForFunction(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/translate")));
  out.slow_requests_while_typing = await slow.evaluate(() => performance.getEntriesByType("resource")
    .filter((e) => e.name.endsWith("/translate") && e.startTime < window.lastInput).length);
  out.slow_pause_ms = await lastPause(slow);
  await slow.evaluate((text) => {
    const t = document.querySelector("#text");
    t.value = text;
    t.dispatchEvent(new InputEvent("input", { inputType: "insertFromPaste", data: text }));
  }, c.text);
  await slow.waitForFunction(() => performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/translate")).length > 1);
  out.paste_pause_ms = await lastPause(slow);
  await slow.close();

  await page.select("#source", c.source);
  await page.$eval("#text", (t) => { t.value = ""; });
  await page.type("#text", "x".repeat(5));
  await page.evaluate(() => {  // a text over the server's character limit
    const t = document.querySelector("#text");
    t.value = "x".repeat(200001);
    t.dispatchEvent(new Event("input"));
  });
  await page.waitForFunction(() => !document.querySelector("#error").hidden);
  out.error_limit = await page.$eval("#error", (e) => e.textContent);

  // A document dropped on the page: its progress line, then the download link.
  if (c.file) {
    await page.evaluate(() => {
      window.seen = [];
      const d = document.querySelector("#download");
      new MutationObserver(() => window.seen.push(d.textContent)).observe(d, { childList: true, characterData: true, subtree: true });
    });
    await (await page.$("#file")).uploadFile(c.file);
    await page.waitForFunction(() => document.querySelector("#download a"), { timeout: 120000 });
    out.file_seen = [...new Set(await page.evaluate(() => window.seen))];
    out.file_link = await page.$eval("#download a", (a) => a.textContent);
    out.file_href = await page.$eval("#download a", (a) => a.href);
  }
  out.page_errors = errors;
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
