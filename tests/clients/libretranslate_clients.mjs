// Three LibreTranslate client libraries from npm, each with its defaults,
// pointed at our server: node libretranslate_clients.mjs PORT JSON_TEXTS
// (JSON_TEXTS: {"en": ..., "de": ..., "fr": ...}). Prints one JSON object of
// what each returned; tests/serve_clients_test.cpp compares it with the
// server's own answers.
import translate from "translate";
import { translate as libretranslate } from "libretranslate";
import { libreTranslate } from "libretranslate-ts";

const base = `http://127.0.0.1:${process.argv[2]}`;
const texts = JSON.parse(process.argv[3]);
const out = {};

// translate: engine "libre", the POST URL itself; from/to are required codes.
translate.engine = "libre";
translate.url = `${base}/translate`;
out.translate = await translate(texts.en, { from: "en", to: "de" });

// libretranslate: reads /languages first, source defaults to "auto".
out.libretranslate = await libretranslate({ query: texts.de, target: "en", apiurl: base });

// libretranslate-ts: api_key null unless set; a pivoted pair (fr->de) and /detect.
libreTranslate.setApiEndpoint(base);
const fr = await libreTranslate.translate(texts.fr, "fr", "de");
out.libretranslate_ts = { status: fr.status, translatedText: fr.translatedText, error: fr.error ?? null };
out.libretranslate_ts_detect = await libreTranslate.detect(texts.fr);
const bad = await libreTranslate.translate(texts.fr, "fr", "es");
out.libretranslate_ts_unknown_pair = { status: bad.status, error: bad.error ?? null };

console.log(JSON.stringify(out));
