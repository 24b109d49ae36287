// The page's latency as a person sees it (issue 53's must-show 4), in Debian's
// chromium (headless, driven by puppeteer-core):
//   node page_latency.mjs PORT SOURCE TARGET TEXT EXPECTED [REPEATS=5] [KEY_MS=40]
// Types TEXT into the page of the server on PORT at KEY_MS a key, REPEATS
// times, and for each prints the milliseconds from the last key's input event
// to the page showing EXPECTED (the command line's translation), split into
// the page's typing pause (last key -> the /translate request leaves) and the
// request's round trip (request -> answer; the server's part), all on the
// page's own clock. bench/page_latency.sh runs it and prints the table.
import puppeteer from "puppeteer-core";

const [port, source, target, text, expected] = process.argv.slice(2, 7);
const repeats = Number(process.argv[7] || 5);
const keyMs = Number(process.argv[8] || 40);
const base = `http://127.0.0.1:${port}`;

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
});
const runs = [];
try {
  const page = await browser.newPage();
  await page.goto(base + "/", { waitUntil: "networkidle0" });
  await page.waitForFunction(() => document.querySelectorAll("#target option").length > 0);
  await page.select("#source", source);
  await page.select("#target", target);
  await page.evaluate((want) => {
    window.lastInput = 0;
    window.shown = 0;
    document.querySelector("#text").addEventListener("input", () => { window.lastInput = performance.now(); }, true);
    const result = document.querySelector("#result");
    new MutationObserver(() => {
      if (result.textContent === want && !window.shown) window.shown = performance.now();
    }).observe(result, { childList: true, characterData: true, subtree: true });
  }, expected);
  for (let i = 0; i < repeats; ++i) {
    await page.evaluate(() => {
      document.querySelector("#text").value = "";
      document.querySelector("#result").textContent = "";
      window.shown = 0;
      performance.clearResourceTimings();
    });
    await page.type("#text", text, { delay: keyMs });
    await page.waitForFunction(() => window.shown > 0, { timeout: 30000 });
    runs.push(await page.evaluate(() => {
      const calls = performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/translate"));
      const last = calls[calls.length - 1];
      return { total_ms: window.shown - window.lastInput, pause_ms: last.startTime - window.lastInput,
               round_trip_ms: last.responseEnd - last.startTime, requests: calls.length };
    }));
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(runs));
