// The server's page: translation as you type, language pickers from
// /languages, detection, swap, copy, files, and the alignment view (the word
// each translated word attended to, from the server's "alignment" field).
// Plain JavaScript, no build step, nothing from another host.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  settings: null, languages: [], names: {}, controller: null, timer: 0, detected: "", translation: "",
  links: [], sourceText: "", keyTimes: [],
};

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

function storedKey() { return localStorage.getItem("nmt-api-key") || ""; }

function explain(error) {
  if (error.status === 429) return "The server is busy (" + error.message + "); try again in a moment.";
  if (error.status === 503) return "The server is still loading its models; this page will try again.";
  if (error.status === 0) return "The server cannot be reached.";
  return error.message;
}

async function api(path, init = {}) {
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new ApiError(0, "The server cannot be reached.");
  }
  let body = null;
  try { body = await response.json(); } catch (e) { body = null; }
  if (!response.ok) {
    throw new ApiError(response.status, body && body.error ? body.error : "HTTP status " + response.status + ".");
  }
  return body;
}

function showError(message) {
  $("error").hidden = !message;
  $("error").textContent = message || "";
}

function setStatus(message) { $("status").textContent = message; }

function option(code, name) {
  const o = document.createElement("option");
  o.value = code;
  o.textContent = name;
  return o;
}

function fillTargets() {
  const source = $("source").value, previous = $("target").value;
  let targets;
  if (source === "auto") {
    targets = [...new Set(state.languages.flatMap((l) => l.targets))].sort();
  } else {
    targets = (state.languages.find((l) => l.code === source) || { targets: [] }).targets;
  }
  $("target").replaceChildren(...targets.map((code) => option(code, state.names[code] || code)));
  if (targets.includes(previous)) $("target").value = previous;
}

function fillLanguages() {
  const sources = state.languages.filter((l) => l.targets.length > 0);
  for (const l of state.languages) state.names[l.code] = l.name;
  $("source").replaceChildren(option("auto", "Detect language"), ...sources.map((l) => option(l.code, l.name)));
  const defaults = state.settings.language || {};
  if (defaults.source && [...$("source").options].some((o) => o.value === defaults.source.code)) {
    $("source").value = defaults.source.code;
  }
  fillTargets();
  if (defaults.target && [...$("target").options].some((o) => o.value === defaults.target.code)) {
    $("target").value = defaults.target.code;
  }
}

async function start() {
  try {
    state.settings = await api("frontend/settings");
    state.languages = await api("languages");
  } catch (error) {
    setStatus(explain(error));
    setTimeout(start, 1000);
    return;
  }
  fillLanguages();
  $("key-row").hidden = !(state.settings.apiKeys || state.settings.keyRequired);
  $("api-key").value = storedKey();
  $("file").closest("label").hidden = !state.settings.filesTranslation;
  setStatus("Ready: " + state.languages.filter((l) => l.targets.length).length + " source language(s).");
  updateCount();
  if ($("text").value.trim()) schedule(0);
}

function overLimit() {
  const limit = state.settings ? state.settings.charLimit : -1;
  return limit > 0 && [...$("text").value].length > limit;
}

function updateCount() {
  const n = [...$("text").value].length, limit = state.settings ? state.settings.charLimit : -1;
  $("count").textContent = limit > 0 ? n + " / " + limit : String(n);
  $("count").classList.toggle("over", overLimit());
}

// Typing restarts the wait; a request still in flight is aborted when the next one goes.
function schedule(delay) {
  clearTimeout(state.timer);
  state.timer = setTimeout(translate, delay);
}

async function translate() {
  const text = $("text").value;
  if (state.controller) state.controller.abort();
  if (!state.settings) return;
  if (!text.trim()) {
    render("", [], text);
    showError("");
    return;
  }
  if (overLimit()) {
    showError("The text is longer than this server's limit of " + state.settings.charLimit + " characters.");
    return;
  }
  const controller = new AbortController();
  state.controller = controller;
  const body = { q: text, source: $("source").value, target: $("target").value, format: "text",
                 alignment: true, api_key: storedKey() };
  try {
    const answer = await api("translate", { method: "POST", headers: { "Content-Type": "application/json" },
                                            body: JSON.stringify(body), signal: controller.signal });
    if (controller !== state.controller) return;
    showError("");
    const detected = answer.detectedLanguage;
    state.detected = detected ? detected.language : "";
    $("detected").textContent = detected
      ? "Detected: " + (state.names[detected.language] || detected.language) + " (" + Math.round(detected.confidence) + "%)"
      : "";
    render(answer.translatedText, answer.alignment || [], text);
  } catch (error) {
    if (error.name === "AbortError") return;
    showError(explain(error));
    if (error.status === 503) schedule(2000);
  } finally {
    if (controller === state.controller) state.controller = null;
  }
}

function span(text, className, attrs) {
  const s = document.createElement("span");
  s.className = className;
  s.textContent = text;
  for (const [k, v] of Object.entries(attrs)) s.setAttribute(k, v);
  return s;
}

// The translation with a focusable span per aligned word, and the source with a span per word they point at.
function render(translation, links, sourceText) {
  state.translation = translation;
  state.links = links.slice().sort((a, b) => a[0] - b[0]);
  state.sourceText = sourceText;
  const out = [];
  let at = 0;
  state.links.forEach((l, k) => {
    if (l[0] < at) return;
    out.push(document.createTextNode(translation.slice(at, l[0])));
    out.push(span(translation.slice(l[0], l[1]), "w", { tabindex: "0", "data-link": String(k) }));
    at = l[1];
  });
  out.push(document.createTextNode(translation.slice(at)));
  $("result").replaceChildren(...out);
  $("copy").disabled = !translation;
  const ranges = [...new Map(state.links.map((l) => [l[2] + ":" + l[3], [l[2], l[3]]])).values()]
    .sort((a, b) => a[0] - b[0]);
  const words = [];
  at = 0;
  for (const [b, e] of ranges) {
    if (b < at) continue;
    words.push(document.createTextNode(sourceText.slice(at, b)));
    words.push(span(sourceText.slice(b, e), "w", { tabindex: "0", "data-source": b + ":" + e }));
    at = e;
  }
  words.push(document.createTextNode(sourceText.slice(at)));
  $("source-words").replaceChildren(...words);
}

function clearLinks() {
  for (const s of document.querySelectorAll(".w.linked")) s.classList.remove("linked");
}

function highlight(target) {
  clearLinks();
  if (!target || !target.classList || !target.classList.contains("w")) return;
  target.classList.add("linked");
  if (target.dataset.link !== undefined) {
    const l = state.links[Number(target.dataset.link)];
    const source = document.querySelector('[data-source="' + l[2] + ":" + l[3] + '"]');
    if (source) source.classList.add("linked");
  } else {
    const [b, e] = target.dataset.source.split(":").map(Number);
    state.links.forEach((l, k) => {
      if (l[2] === b && l[3] === e) {
        const t = document.querySelector('[data-link="' + k + '"]');
        if (t) t.classList.add("linked");
      }
    });
  }
}

function swap() {
  let source = $("source").value;
  if (source === "auto") source = state.detected;
  const target = $("target").value;
  if (!source || !state.languages.some((l) => l.code === target && l.targets.includes(source))) {
    showError("This server cannot translate " + (state.names[target] || target) + " to " +
              (state.names[source] || source || "the detected language") + ".");
    return;
  }
  $("source").value = target;
  fillTargets();
  $("target").value = source;
  $("text").value = state.translation;
  updateCount();
  schedule(0);
}

async function copy() {
  try {
    await navigator.clipboard.writeText(state.translation);
    setStatus("Copied the translation.");
  } catch (e) {  // no clipboard API (a page served over plain HTTP elsewhere than localhost)
    const range = document.createRange();
    range.selectNodeContents($("result"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    setStatus(document.execCommand("copy") ? "Copied the translation." : "Select the translation and copy it.");
  }
}

// A random id for the upload's progress (crypto.randomUUID needs a secure context; this does not).
function progressId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function translateFile(file) {
  if (!file) return;
  const id = progressId();
  const form = new FormData();
  form.append("file", file);
  form.append("source", $("source").value);
  form.append("target", $("target").value);
  form.append("api_key", storedKey());
  form.append("progress_id", id);
  $("download").hidden = false;
  $("download").textContent = "Translating " + file.name + "…";
  // How far it has come, every half second until the answer.
  let polling = true;
  const poll = async () => {
    while (polling) {
      await new Promise((r) => setTimeout(r, 500));
      try {
        const p = await api("translate_file/progress/" + id);
        if (polling && p.total > 0) {
          $("download").textContent = "Translating " + file.name + "… " + p.done + " of " + p.total + " parts";
        }
      } catch (e) { /* not started yet, or gone: the answer will say */ }
    }
  };
  poll();
  try {
    const answer = await api("translate_file", { method: "POST", body: form });
    polling = false;
    const link = document.createElement("a");
    link.href = answer.translatedFileUrl;
    link.textContent = "Download the translation of " + file.name;
    link.setAttribute("download", "");
    $("download").replaceChildren(link);
    showError("");
  } catch (error) {
    polling = false;
    $("download").hidden = true;
    showError(explain(error));
  }
}

function wire() {
  $("text").addEventListener("input", (e) => {
    updateCount();
    // A paste or a drop is a finished text; typing waits for a pause (typing_pause.js).
    const whole = e.inputType === "insertFromPaste" || e.inputType === "insertFromDrop";
    schedule(whole ? 0 : keyTyped(state.keyTimes, performance.now()));
  });
  $("source").addEventListener("change", () => { fillTargets(); schedule(0); });
  $("target").addEventListener("change", () => schedule(0));
  $("swap").addEventListener("click", swap);
  $("copy").addEventListener("click", copy);
  $("api-key").addEventListener("change", () => { localStorage.setItem("nmt-api-key", $("api-key").value); schedule(0); });
  $("file").addEventListener("change", () => translateFile($("file").files[0]));
  const drop = $("drop");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    if (e.dataTransfer.files.length) translateFile(e.dataTransfer.files[0]);
  });
  for (const where of [$("result"), $("source-words")]) {
    where.addEventListener("mouseover", (e) => highlight(e.target));
    where.addEventListener("focusin", (e) => highlight(e.target));
    where.addEventListener("mouseleave", clearLinks);
  }
}

wire();
start();
