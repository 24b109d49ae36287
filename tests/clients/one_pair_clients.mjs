// Three LibreTranslate client libraries from npm, each with its defaults,
// asked for one pair: node one_pair_clients.mjs PORT SOURCE TARGET TEXT.
// Prints one JSON object of what each returned (scripts/docker_proof.sh
// compares them with the server's own answer, for a server of one model).
import translate from "translate";
import { translate as libretranslate } from "libretranslate";
import { libreTranslate } from "libretranslate-ts";

const [port, source, target, text] = process.argv.slice(2);
const base = `http://127.0.0.1:${port}`;
const out = {};

translate.engine = "libre";
translate.url = `${base}/translate`;
out.translate = await translate(text, { from: source, to: target });
out.libretranslate = await libretranslate({ query: text, source, target, apiurl: base });
libreTranslate.setApiEndpoint(base);
const r = await libreTranslate.translate(text, source, target);
out.libretranslate_ts = r.status === 200 ? r.translatedText : { status: r.status, error: r.error ?? null };

console.log(JSON.stringify(out));
