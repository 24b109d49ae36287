#!/usr/bin/env python3
"""Writes an English->German corpus of a domain the sample model never saw: the office and IT.

Usage:
  python3 examples/sample/domain.py --out DIR                 # domain_train/test .en/.de
  python3 examples/sample/domain.py --out DIR --train 200 --test 50 --seed 7
  python3 examples/sample/domain.py --out DIR --tokens RUN/vocab/tokens.txt   # also check the
                                                                # characters against a model's pieces
  python3 examples/sample/domain.py --self-test               # hand-checked pairs, determinism

The sentences come from the sample grammar (grammar.py renders both languages,
sampler.py draws the clauses and sentence types) with a lexicon of its own:
office and IT nouns (printer/Drucker, file/Datei, password/Passwort, ...),
people of the office (colleague/Kollege, a weak noun like Junge; customer/Kunde,
...), places (office/Büro, drawer/Schublade, ...), verbs (print/drucken,
download/herunterladen, connect/anschließen and fill in/ausfüllen, separable;
...) and adjectives (slow/langsam, broken/kaputt, ...). None of
these words occurs in examples/sample/train.* (checked at every run); the
sentences mix them with the sample's function words, pronouns, names, modals,
time adverbials and a few of its people and things, so syntax and agreement
are the sample's and the words are new.

The grammar and sampler modules are loaded as private copies whose tables are
replaced, so the sample's own files and generate.py's output stay as they are.

Words are chosen so that the sample model's SentencePiece pieces can spell
them: its 1,000 pieces lack "C", "N", "R", "U" and "-" (too rare in the sample
to be kept), so the German "Computer", "Netzwerk", "Rechnung", "Update" and
"E-Mail" could never come out of it, however long it is fine-tuned; --tokens
checks this for any model's token list.

Every pair contains at least one domain word; the test split shares no English
and no German sentence with the train split, and every word of the test split
(both sides) occurs in the train split, as in the sample's own held-out sets.
Python 3 standard library only; the output depends on the arguments alone.
"""

import argparse
import importlib.util
import os
import random
import sys
from collections import Counter

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import generate  # noqa: E402  (words(), MAX_WORDS)
import lexicon  # noqa: E402
from lexicon import Adj, Noun, Verb  # noqa: E402

SEED = 20241202
DEFAULT_TRAIN, DEFAULT_TEST = 2000, 300


# ---------------------------------------------------------------------- lexicon

def _noun(en, en_pl, gender, de, de_pl, weak=False):
    return Noun(en, en_pl, gender, de, de_pl, weak)


def _verb(en, en_s3, en_part, de_inf, de_s1, de_s3, de_part, aux="haben", prefix=""):
    return Verb(en, en_s3, en_part, de_inf, de_s1, de_s3, de_part, aux, prefix)


DOMAIN_NOUNS = {n.en: n for n in [
    # people of the office
    _noun("colleague", "colleagues", "m", "Kollege", "Kollegen", weak=True),
    _noun("customer", "customers", "m", "Kunde", "Kunden", weak=True),
    _noun("intern", "interns", "m", "Praktikant", "Praktikanten", weak=True),
    _noun("technician", "technicians", "m", "Techniker", "Techniker"),
    _noun("programmer", "programmers", "m", "Programmierer", "Programmierer"),
    _noun("manager", "managers", "m", "Manager", "Manager"),
    _noun("secretary", "secretaries", "f", "Sekretärin", "Sekretärinnen"),
    # hardware
    _noun("printer", "printers", "m", "Drucker", "Drucker"),
    _noun("screen", "screens", "m", "Bildschirm", "Bildschirme"),
    _noun("keyboard", "keyboards", "f", "Tastatur", "Tastaturen"),
    _noun("server", "servers", "m", "Server", "Server"),
    _noun("laptop", "laptops", "m", "Laptop", "Laptops"),
    _noun("cable", "cables", "n", "Kabel", "Kabel"),
    _noun("scanner", "scanners", "m", "Scanner", "Scanner"),
    _noun("tablet", "tablets", "n", "Tablet", "Tablets"),
    _noun("phone", "phones", "n", "Telefon", "Telefone"),
    _noun("plug", "plugs", "m", "Stecker", "Stecker"),
    _noun("battery", "batteries", "m", "Akku", "Akkus"),
    _noun("charger", "chargers", "n", "Ladegerät", "Ladegeräte"),
    _noun("webcam", "webcams", "f", "Webcam", "Webcams"),
    _noun("headset", "headsets", "n", "Headset", "Headsets"),
    _noun("projector", "projectors", "m", "Beamer", "Beamer"),
    # documents and data
    _noun("file", "files", "f", "Datei", "Dateien"),
    _noun("password", "passwords", "n", "Passwort", "Passwörter"),
    _noun("folder", "folders", "m", "Ordner", "Ordner"),
    _noun("document", "documents", "n", "Dokument", "Dokumente"),
    _noun("program", "programs", "n", "Programm", "Programme"),
    _noun("website", "websites", "f", "Webseite", "Webseiten"),
    _noun("backup", "backups", "n", "Backup", "Backups"),
    _noun("report", "reports", "m", "Bericht", "Berichte"),
    _noun("spreadsheet", "spreadsheets", "f", "Tabelle", "Tabellen"),
    _noun("database", "databases", "f", "Datenbank", "Datenbanken"),
    _noun("app", "apps", "f", "App", "Apps"),
    _noun("browser", "browsers", "m", "Browser", "Browser"),
    _noun("contract", "contracts", "m", "Vertrag", "Verträge"),
    _noun("form", "forms", "n", "Formular", "Formulare"),
    _noun("list", "lists", "f", "Liste", "Listen"),
    _noun("receipt", "receipts", "m", "Beleg", "Belege"),
    _noun("presentation", "presentations", "f", "Präsentation", "Präsentationen"),
    _noun("appointment", "appointments", "m", "Termin", "Termine"),
    _noun("calendar", "calendars", "m", "Kalender", "Kalender"),
    # places and furniture (singular only, as the sample's)
    _noun("office", None, "n", "Büro", None),
    _noun("company", None, "f", "Firma", None),
    _noun("lab", None, "n", "Labor", None),
    _noun("basement", None, "m", "Keller", None),
    _noun("desk", None, "m", "Schreibtisch", None),
    _noun("drawer", None, "f", "Schublade", None),
    _noun("cupboard", None, "m", "Schrank", None),
]}

DOMAIN_ADJS = {a.en: a for a in [
    Adj("slow", "langsam", None), Adj("fast", "schnell", None), Adj("important", "wichtig", None),
    Adj("urgent", "dringend", None), Adj("broken", "kaputt", None), Adj("secure", "sicher", None),
    Adj("empty", "leer", None), Adj("long", "lang", None), Adj("short", "kurz", None),
    Adj("busy", "beschäftigt", None),
]}

DOMAIN_VERBS = {v.en: v for v in [
    _verb("print", "prints", "printed", "drucken", "drucke", "druckt", "gedruckt"),
    _verb("save", "saves", "saved", "speichern", "speichere", "speichert", "gespeichert"),
    _verb("delete", "deletes", "deleted", "löschen", "lösche", "löscht", "gelöscht"),
    _verb("install", "installs", "installed", "installieren", "installiere", "installiert", "installiert"),
    _verb("copy", "copies", "copied", "kopieren", "kopiere", "kopiert", "kopiert"),
    _verb("download", "downloads", "downloaded", "laden", "lade", "lädt", "geladen", prefix="herunter"),
    _verb("connect", "connects", "connected", "schließen", "schließe", "schließt", "geschlossen",
          prefix="an"),
    _verb("check", "checks", "checked", "prüfen", "prüfe", "prüft", "geprüft"),
    _verb("start", "starts", "started", "starten", "starte", "startet", "gestartet"),
    _verb("scan", "scans", "scanned", "scannen", "scanne", "scannt", "gescannt"),
    _verb("fill in", "fills in", "filled in", "füllen", "fülle", "füllt", "gefüllt", prefix="aus"),
    _verb("update", "updates", "updated", "aktualisieren", "aktualisiere", "aktualisiert",
          "aktualisiert"),
]}

STAFF = ["colleague", "customer", "intern", "technician", "programmer", "manager", "secretary"]
PEOPLE = STAFF + ["man", "woman", "friend"]  # a few of the sample's people work here too
HARDWARE = ["printer", "screen", "keyboard", "server", "laptop", "cable", "scanner", "tablet",
            "phone", "plug", "battery", "charger", "webcam", "headset", "projector"]
MACHINES = ["printer", "server", "laptop", "scanner", "tablet", "phone", "projector"]
PAPERS = ["document", "report", "contract", "form", "list", "receipt", "presentation", "spreadsheet"]
DATA = PAPERS + ["file", "password", "folder", "program", "website", "backup", "database", "app",
                 "browser", "appointment", "calendar"]
SOFTWARE = ["program", "website", "app", "browser", "database"]
PLACES = ["office", "company", "lab", "basement"]
FURNITURE = ["desk", "drawer", "cupboard"]

ADJ_PERSON = ["old", "young", "tired", "hungry", "friendly", "happy", "clever", "sad", "new", "busy"]
ADJ_HARDWARE = ["old", "new", "big", "small", "black", "expensive", "cheap", "broken"]
ADJ_PLACE = ["old", "new", "big", "small", "beautiful", "empty"]
ADJ_BY_NOUN = {
    "password": ["new", "old", "secure", "long", "short"],
    "appointment": ["new", "important", "urgent", "short", "long"],
    "calendar": ["new", "old", "big", "small", "black"],
    "folder": ["new", "old", "empty", "important", "big"],
}
for _n in MACHINES:
    ADJ_BY_NOUN[_n] = ADJ_HARDWARE + ["slow", "fast"]
for _n in SOFTWARE:
    ADJ_BY_NOUN[_n] = ["new", "old", "slow", "fast", "secure", "good", "expensive", "cheap"]
for _n in PAPERS + ["file", "backup"]:
    ADJ_BY_NOUN[_n] = ["new", "old", "important", "urgent", "long", "short"]

# verb -> (subjects, objects)
TRANSITIVE = {
    "print": (PEOPLE, PAPERS + ["file", "letter", "picture"]),
    "save": (PEOPLE, PAPERS + ["file", "password"]),
    "delete": (PEOPLE, ["file", "document", "folder", "program", "app", "backup", "receipt", "list",
                        "presentation", "appointment", "password"]),
    "install": (PEOPLE, SOFTWARE + ["printer", "scanner", "webcam", "server"]),
    "copy": (PEOPLE, ["file", "document", "folder", "spreadsheet", "report", "list", "receipt",
                      "database", "form", "contract"]),
    "download": (PEOPLE, ["file", "document", "program", "app", "browser", "backup", "presentation",
                          "form", "spreadsheet"]),
    "connect": (PEOPLE, ["cable", "printer", "screen", "keyboard", "laptop", "scanner", "projector",
                         "webcam", "headset", "charger", "phone", "tablet"]),
    "check": (PEOPLE, ["file", "report", "contract", "password", "server", "cable", "backup", "list",
                       "spreadsheet", "database", "form", "battery"]),
    "start": (PEOPLE, ["laptop", "server", "program", "app", "browser", "printer", "scanner",
                       "projector", "presentation", "tablet"]),
    "scan": (PEOPLE, ["document", "contract", "form", "receipt", "picture", "letter", "report", "list"]),
    "fill in": (PEOPLE, ["form", "list", "spreadsheet"]),
    "update": (PEOPLE, SOFTWARE + ["list", "calendar", "spreadsheet", "server", "laptop"]),
    # the sample's verbs with the domain's objects
    "buy": (PEOPLE, HARDWARE + ["calendar", "program"]),
    "find": (PEOPLE, ["file", "folder", "cable", "password", "document", "contract", "list", "receipt",
                      "plug", "charger", "battery", "key"]),
    "read": (PEOPLE, ["document", "report", "contract", "receipt", "list", "file", "website", "form"]),
    "write": (PEOPLE, ["report", "list", "program", "document", "presentation", "letter"]),
    "see": (PEOPLE, ["screen", "laptop", "printer", "server", "presentation", "website", "document",
                     "list", "calendar"]),
    "visit": (PEOPLE, ["customer", "colleague", "company", "office", "lab"]),
    "open": (PEOPLE, ["drawer", "cupboard", "laptop", "folder", "door", "window"]),
    "close": (PEOPLE, ["drawer", "cupboard", "laptop", "folder", "door", "window"]),
    "help": (PEOPLE, STAFF),
    "answer": (PEOPLE, ["colleague", "customer", "manager", "technician"]),
}
TRANSITIVE_LOC = {"print": PLACES, "read": PLACES, "write": PLACES, "check": PLACES,
                  "find": ["office", "lab", "basement", "drawer", "cupboard", "folder"],
                  "see": ["office", "lab", "company"]}
BENEFACTIVE = ["print", "buy", "write", "copy", "scan", "install", "download"]
DITRANSITIVE = {
    "give": ["laptop", "cable", "document", "report", "contract", "key", "password", "list", "receipt",
             "charger", "phone", "tablet", "keyboard", "form"],
    "show": ["file", "document", "report", "presentation", "website", "screen", "program", "app",
             "list", "calendar", "spreadsheet"],
    "send": ["file", "document", "report", "contract", "presentation", "receipt", "list", "form",
             "spreadsheet", "letter"],
    "bring": ["laptop", "cable", "charger", "keyboard", "document", "contract", "report", "list",
              "plug", "battery", "form"],
}
INTRANSITIVE = {
    "work": (PEOPLE, [("in", "in", "dat", PLACES),
                      ("with", "mit", "dat", STAFF + ["laptop", "tablet", "program", "app",
                                                      "database", "spreadsheet"])]),
}
_TO = ("to", "zu", "dat")
_INTO = ("into", "in", "acc")
_THROUGH = ("through", "durch", "acc")
MOTION = {
    "go": (PEOPLE, [_TO + (["technician", "colleague", "customer", "manager", "secretary", "printer",
                            "desk"],), _INTO + (["office", "lab", "basement", "company"],),
                    _THROUGH + (["office", "lab"],)]),
    "come": (PEOPLE, [_TO + (["customer", "colleague", "technician", "manager"],),
                      _INTO + (["office", "lab", "basement", "company"],)]),
    "drive": (PEOPLE, [_TO + (["customer", "company", "technician"],)]),
    "run": (PEOPLE, [_TO + (["printer", "desk", "colleague", "secretary"],),
                     _INTO + (["office", "lab", "basement"],)]),
}
PUT_OBJECTS = ["laptop", "keyboard", "cable", "document", "contract", "report", "list", "receipt",
               "phone", "tablet", "charger", "plug", "battery", "form", "key", "book", "cup", "letter"]
PUT_PLACES = [("on", "auf", "acc", ["desk", "printer"]), ("into", "in", "acc", ["drawer", "cupboard"]),
              ("under", "unter", "acc", ["desk", "printer"]),
              ("next to", "neben", "acc", ["screen", "printer", "keyboard", "laptop", "phone"])]
WHERE_PEOPLE = [("in", "in", "dat", PLACES), ("next to", "neben", "dat", ["printer", "desk", "door"]),
                ("behind", "hinter", "dat", ["desk", "door", "screen"])]
WHERE_HARDWARE = [("in", "in", "dat", ["office", "lab", "basement", "drawer", "cupboard", "bag", "box"]),
                  ("on", "auf", "dat", ["desk", "table"]), ("under", "unter", "dat", ["desk", "table"]),
                  ("next to", "neben", "dat", ["screen", "printer", "laptop", "keyboard", "door"]),
                  ("behind", "hinter", "dat", ["screen", "desk", "printer"])]
WHERE_DATA = [("in", "in", "dat", ["folder", "drawer"]),
              ("on", "auf", "dat", ["laptop", "server", "tablet", "desk"])]

FRAMES = [("transitive", 36), ("ditransitive", 12), ("intransitive", 8), ("motion", 10),
          ("put", 8), ("wait", 5), ("copula_adj", 12), ("copula_loc", 9)]


def noun_words():
    """Every English and German form of the domain's nouns, per side."""
    en, de = set(), set()
    for n in DOMAIN_NOUNS.values():
        en.update([n.en] + ([n.en_pl] if n.en_pl else []))
        de.add(n.de)
        if n.weak:
            de.add(n.de + ("n" if n.de.endswith("e") else "en"))
        if n.de_pl:
            de.update([n.de_pl, n.de_pl if n.de_pl.endswith(("n", "s")) else n.de_pl + "n"])
    return en, de


def domain_words():
    """Every English and German word form of the domain lexicon, per side."""
    en, de = noun_words()
    for a in DOMAIN_ADJS.values():
        en.add(a.en)
        de.update([a.de] + [a.de + e for e in ("e", "en", "er", "es")])
    for v in DOMAIN_VERBS.values():
        en.update(form.split()[0] for form in (v.en, v.en_s3, v.en_part))  # fill (in)
        de.update([v.de_inf, v.de_s1, v.de_s3, v.de_part, v.prefix + v.de_inf, v.prefix + v.de_part,
                   v.prefix + v.de_s1, v.prefix + v.de_s3])
    return en, de


# ---------------------------------------------------------- the grammar, privately

def _private_copy(name):
    """grammar.py or sampler.py loaded afresh as a module of its own, so that
    replacing its tables here changes nothing for the sample's own modules."""
    spec = importlib.util.spec_from_file_location("domain_" + name, os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check_lexicon():
    for table, ours in ((lexicon.NOUNS, DOMAIN_NOUNS), (lexicon.ADJS, DOMAIN_ADJS),
                        (lexicon.VERBS, DOMAIN_VERBS)):
        clash = set(table) & set(ours)
        assert not clash, "domain words already in the sample lexicon: %r" % sorted(clash)
    nouns = {**lexicon.NOUNS, **DOMAIN_NOUNS}
    mentioned = set(PEOPLE + HARDWARE + DATA + PLACES + FURNITURE + PUT_OBJECTS)
    for subjects, objects in TRANSITIVE.values():
        mentioned.update(subjects + objects)
    for things in DITRANSITIVE.values():
        mentioned.update(things)
    for options in [PUT_PLACES, WHERE_PEOPLE, WHERE_HARDWARE, WHERE_DATA] + \
            [places for _, places in list(INTRANSITIVE.values()) + list(MOTION.values())]:
        for option in options:
            mentioned.update(option[3])
    unknown = mentioned - set(nouns)
    assert not unknown, "nouns in no lexicon: %r" % sorted(unknown)
    assert set(DOMAIN_NOUNS) <= mentioned, "domain nouns never drawn: %r" % sorted(
        set(DOMAIN_NOUNS) - mentioned)
    for verb in TRANSITIVE:
        assert verb in lexicon.VERBS or verb in DOMAIN_VERBS, verb
    for noun in ADJ_BY_NOUN:
        assert noun in DOMAIN_NOUNS, noun


def build():
    """(grammar, Sampler class) for the domain: the sample's code, the domain's tables."""
    _check_lexicon()
    g = _private_copy("grammar")
    g.NOUNS = {**lexicon.NOUNS, **DOMAIN_NOUNS}
    g.ADJS = {**lexicon.ADJS, **DOMAIN_ADJS}
    g.VERBS = {**lexicon.VERBS, **DOMAIN_VERBS}
    s = _private_copy("sampler")
    sample_adjectives_for = s.adjectives_for

    def adjectives_for(noun):
        if noun in ADJ_BY_NOUN:
            return ADJ_BY_NOUN[noun]
        if noun in PEOPLE:
            return ADJ_PERSON
        if noun in HARDWARE:
            return ADJ_HARDWARE
        if noun in PLACES + FURNITURE:
            return ADJ_PLACE
        return sample_adjectives_for(noun)  # the sample's own nouns (key, letter, ...)

    # The tables the sample's Sampler methods read; f_put and the copulas, which
    # name the sample's kinds of noun in their code, are the subclass's below.
    tables = dict(g=g, NOUNS=g.NOUNS, PEOPLE=PEOPLE, PA=PEOPLE, TRANSITIVE=TRANSITIVE,
                  TRANSITIVE_LOC=TRANSITIVE_LOC, BENEFACTIVE=BENEFACTIVE, DITRANSITIVE=DITRANSITIVE,
                  INTRANSITIVE=INTRANSITIVE, MOTION=MOTION, FRAMES=FRAMES,
                  adjectives_for=adjectives_for)
    for name, value in tables.items():
        assert hasattr(s, name), name  # a table the sampler no longer has would go unnoticed
        setattr(s, name, value)

    class DomainSampler(s.Sampler):
        """The sample's sampler; only the frames whose kinds of noun differ are its own."""

        def f_put(self, tense, modal, neg):
            subj = self.subject(PEOPLE)
            obj = self.obj(PUT_OBJECTS)
            return g.clause(subj, "put", tense, modal, neg, obj=obj,
                            pp=self.pp(PUT_PLACES, avoid=obj.noun))

        def f_copula_adj(self, tense, modal, neg):
            kind = self.weighted([(PEOPLE, 4), (HARDWARE, 4), (DATA, 4), (PLACES, 1)])
            saved, self.adj_p = self.adj_p, 0.0  # no "the broken printer is slow"
            subj = self.subject(kind)
            self.adj_p = saved
            adj = self.pick(adjectives_for(subj.noun or "colleague"))  # names, pronouns: people
            return g.clause(subj, "be", neg=neg, adj=adj)

        def f_copula_loc(self, tense, modal, neg):
            kind = self.weighted([(PEOPLE, 3), (HARDWARE, 4), (DATA, 4)])
            subj = self.subject(kind)
            places = {id(PEOPLE): WHERE_PEOPLE, id(HARDWARE): WHERE_HARDWARE}.get(id(kind), WHERE_DATA)
            return g.clause(subj, "be", neg=neg, pp=self.pp(places, avoid=subj.noun))

    return g, DomainSampler


# ------------------------------------------------------------------- the corpus

def draw(sampler, count, seen, en_words):
    """`count` more pairs with new English sides that hold a domain word; `seen` maps
    every English sentence drawn so far to its German and construction (the
    translation is a function of the English sentence)."""
    pairs = []
    while len(pairs) < count:
        kind, (en, de) = sampler.sentence()
        if len(en.split()) > generate.MAX_WORDS or not en_words.intersection(generate.words(en)):
            continue
        if en in seen:
            assert seen[en][0] == de, "ambiguous source: %r -> %r / %r" % (en, seen[en][0], de)
            continue
        seen[en] = (de, kind)
        pairs.append((en, de))
    return pairs


def make_corpus(n_train, n_test, seed):
    """(train, test, construction counts): train a uniform sample of the pairs drawn,
    test the next pairs (in a shuffled order) that share no sentence with train and
    whose words all occur in train."""
    _, DomainSampler = build()
    en_words, _ = domain_words()
    sampler = DomainSampler(random.Random(seed))
    seen = {}
    order = draw(sampler, n_train + n_test, seen, en_words)
    random.Random(seed + 1).shuffle(order)
    train, rest = order[:n_train], order[n_train:]
    known = [{w for p in train for w in generate.words(p[side])} for side in (0, 1)]
    train_de = {p[1] for p in train}
    test, test_de = [], set()
    while True:
        for pair in rest:
            if len(test) == n_test:
                break
            # (English sides are all distinct; two English sentences might share a German one.)
            if pair[1] in train_de or pair[1] in test_de:
                continue
            if all(set(generate.words(pair[side])) <= known[side] for side in (0, 1)):
                test.append(pair)
                test_de.add(pair[1])
        if len(test) == n_test:
            break
        # Too few held-out candidates so far: draw more from the same stream (still a
        # function of the seed) and go on with them.
        if len(seen) > 20 * (n_train + n_test) + 20000:
            sys.exit("domain.py: after %d sentences only %d of %d test pairs use words of the %d "
                     "train pairs alone; ask for more train pairs" % (len(seen), len(test), n_test, n_train))
        rest = draw(sampler, max(n_test, 100), seen, en_words)
    kinds = Counter(seen[en][1] for en, _ in train + test)
    return train, test, kinds


def sample_vocabulary(path_stem):
    """Words of examples/sample/<stem>.en and .de, per side."""
    vocab = []
    for lang in ("en", "de"):
        with open(os.path.join(HERE, "%s.%s" % (path_stem, lang)), encoding="utf-8") as f:
            vocab.append({w for line in f for w in generate.words(line)})
    return vocab


def check(train, test, tokens_path=None):
    """The promises of this corpus, each an assertion; returns the numbers report() prints."""
    for side in (0, 1):
        shared = {p[side] for p in test} & {p[side] for p in train}
        assert not shared, "test and train share %r" % sorted(shared)[:3]
        assert len({p[side] for p in test}) == len(test), "a test sentence occurs twice"
        unseen = {w for p in test for w in generate.words(p[side])} - \
            {w for p in train for w in generate.words(p[side])}
        assert not unseen, "test words unseen in train: %r" % sorted(unseen)
    sample = sample_vocabulary("train")
    # Nouns in no case (Laptop/laptop), verbs and adjectives exactly: German "laden"
    # (of herunterladen) is another word than the sample's noun "Laden" (shop).
    for side, nouns, words in zip((0, 1), noun_words(), domain_words()):
        lower = {w.lower() for w in sample[side]}
        old = {w for w in nouns if w.lower() in lower} | (words & sample[side])
        assert not old, "domain words that occur in the sample's train.%s: %r" % (
            ("en", "de")[side], sorted(old))
    sample_sentences = [set(), set()]
    for stem in ("train", "valid", "test"):
        for side, lang in ((0, "en"), (1, "de")):
            with open(os.path.join(HERE, "%s.%s" % (stem, lang)), encoding="utf-8") as f:
                sample_sentences[side].update(line.rstrip("\n") for line in f)
    for side in (0, 1):
        both = {p[side] for p in train + test} & sample_sentences[side]
        assert not both, "sentences of the sample corpus: %r" % sorted(both)[:3]
    if tokens_path:
        with open(tokens_path, encoding="utf-8") as f:
            pieces = [line.rstrip("\n").split("\t")[0] for line in f]
        alphabet = {c for piece in pieces if not (piece.startswith("<") and piece.endswith(">"))
                    for c in piece}
        # The model can never write a target character that no piece holds; on the
        # source side such a character reads as <unk>, which the sample's own "Can"
        # and "Now" already do, so only the domain's own English words must be spelt.
        missing = {c for p in train + test for c in p[1] if c != " "} - alphabet
        assert not missing, "German characters that no piece of %s holds: %r" % (
            tokens_path, sorted(missing))
        en_words, _ = domain_words()
        used = {w for p in train + test for w in generate.words(p[0]) if w in en_words}
        missing = {c for w in used for c in w} - alphabet
        assert not missing, "characters of the domain's English words that no piece of %s holds: %r" % (
            tokens_path, sorted(missing))
        missing = {c for p in train + test for c in p[0] if c != " "} - alphabet
        if missing:
            print("note: English characters that no piece of %s holds (read as <unk>, as in the "
                  "sample corpus): %s" % (tokens_path, " ".join(sorted(missing))))
    return sample


def write(pairs, out_dir, name):
    for side, lang in ((0, "en"), (1, "de")):
        with open(os.path.join(out_dir, "%s.%s" % (name, lang)), "w", encoding="utf-8",
                  newline="\n") as f:
            f.write("".join(p[side] + "\n" for p in pairs))


def report(train, test, kinds, sample):
    print("domain_train %6d pairs" % len(train))
    print("domain_test  %6d pairs" % len(test))
    total = sum(kinds.values())
    print("constructions: " + ", ".join("%s %.1f%%" % (k, 100.0 * v / total) for k, v in sorted(kinds.items())))
    en_words, _ = domain_words()
    for side, lang in ((0, "en"), (1, "de")):
        vocab = {w for p in train + test for w in generate.words(p[side])}
        new = vocab - sample[side]
        lengths = sorted(len(p[side].split()) for p in train + test)
        print("%s: vocabulary %d words, %d of them not in the sample's train.%s; sentence length "
              "min %d, mean %.1f, max %d" % (lang, len(vocab), len(new), lang, lengths[0],
                                            sum(lengths) / len(lengths), lengths[-1]))
        test_tokens = [w for p in test for w in generate.words(p[side])]
        unknown = sum(1 for w in test_tokens if w not in sample[side])
        print("%s: test tokens unknown to the sample's train: %d of %d (%.1f%%)"
              % (lang, unknown, len(test_tokens), 100.0 * unknown / len(test_tokens)))
    lemma = {form: n.en for n in DOMAIN_NOUNS.values() for form in (n.en, n.en_pl) if form}
    lemma.update({form: v.en for v in DOMAIN_VERBS.values() for form in (v.en, v.en_s3, v.en_part)})
    lemma.update({a.en: a.en for a in DOMAIN_ADJS.values()})
    for name, pairs in (("train", train), ("test", test)):
        used = Counter(lemma[w] for p in pairs for w in generate.words(p[0]) if w in lemma)
        rare = sorted(used.items(), key=lambda kv: (kv[1], kv[0]))[:3]
        print("domain lemmas in %s: %d of %d, %d occurrences (fewest: %s)" % (
            name, len(used), len(DOMAIN_NOUNS) + len(DOMAIN_VERBS) + len(DOMAIN_ADJS),
            sum(used.values()), ", ".join("%s %d" % kv for kv in rare)))


# ------------------------------------------------------------------ self-test

def self_test():
    g, DomainSampler = build()
    P = g.PP
    colleague, printer = g.np_def("colleague"), g.np_def("printer")
    cases = [
        (g.s_plain(g.clause(colleague, "connect", "perf", obj=printer)),
         ("The colleague has connected the printer.", "Der Kollege hat den Drucker angeschlossen.")),
        (g.s_plain(g.clause(g.np_def("technician"), "help", obj=g.np_def("colleague", "new"))),
         ("The technician helps the new colleague.", "Der Techniker hilft dem neuen Kollegen.")),
        (g.s_that(g.clause(g.np_name("Anna"), "say"),
                  g.clause(g.np_def("intern"), "download", obj=g.np_indef("file", "important"))),
         ("Anna says that the intern downloads an important file.",
          "Anna sagt, dass der Praktikant eine wichtige Datei herunterlädt.")),
        (g.s_question(g.clause(g.np_def("secretary"), "fill in", "perf", obj=g.np_def("form"))),
         ("Has the secretary filled in the form?", "Hat die Sekretärin das Formular ausgefüllt?")),
        (g.s_sub_after(g.clause(g.np_pron("she"), "be", adj="busy"), "because",
                       g.clause(g.np_indef("intern"), "fill in", obj=g.np_def("list", pl=True))),
         ("She is busy because an intern fills in the lists.",
          "Sie ist beschäftigt, weil ein Praktikant die Listen ausfüllt.")),
        (g.s_plain(g.clause(g.np_pron("we"), "give", dat=g.np_def("customer", pl=True),
                            obj=g.np_indef("laptop", "cheap"))),
         ("We give the customers a cheap laptop.", "Wir geben den Kunden einen billigen Laptop.")),
        (g.s_plain(g.clause(g.np_def("laptop"), "be", neg=True,
                            pp=P("in", "in", "dat", g.np_def("drawer")))),
         ("The laptop is not in the drawer.", "Der Laptop ist nicht in der Schublade.")),
        (g.s_time("today", "heute", g.clause(g.np_def("programmer"), "delete", neg=True,
                                             obj=g.np_indef("password"))),
         ("Today the programmer does not delete a password.",
          "Heute löscht der Programmierer kein Passwort.")),
        (g.s_sub_before("if", g.clause(g.np_def("server"), "be", adj="slow"),
                        g.clause(g.np_def("manager"), "go", pp=P("into", "in", "acc", g.np_def("office")))),
         ("If the server is slow, the manager goes into the office.",
          "Wenn der Server langsam ist, geht der Manager ins Büro.")),
        (g.s_plain(g.clause(g.np_def("colleague", pl=True), "work",
                            pp=P("with", "mit", "dat", g.np_def("programmer", "busy", pl=True)))),
         ("The colleagues work with the busy programmers.",
          "Die Kollegen arbeiten mit den beschäftigten Programmierern.")),
        (g.s_plain(g.clause(g.np_pron("I"), "put", modal="want", obj=g.np_def("headset", "broken"),
                            pp=P("into", "in", "acc", g.np_def("cupboard")))),
         ("I want to put the broken headset into the cupboard.",
          "Ich will das kaputte Headset in den Schrank legen.")),
    ]
    bad = 0
    for got, want in cases:
        if got != want:
            bad += 1
            print("MISMATCH\n  got  %r\n  want %r" % (got, want))
    a = make_corpus(60, 20, 5)
    b = make_corpus(60, 20, 5)
    assert a == b, "the same seed gave another corpus"
    assert make_corpus(60, 20, 6)[0] != a[0], "another seed gave the same corpus"
    check(a[0], a[1])
    if bad:
        sys.exit("%d of %d domain pairs wrong" % (bad, len(cases)))
    print("domain self-test: %d hand-checked pairs, determinism and the corpus checks passed" % len(cases))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="directory for domain_train/domain_test .en/.de")
    parser.add_argument("--train", type=int, default=DEFAULT_TRAIN, help="train pairs (default %(default)s)")
    parser.add_argument("--test", type=int, default=DEFAULT_TEST, help="test pairs (default %(default)s)")
    parser.add_argument("--seed", type=int, default=SEED, help="random seed (default %(default)s)")
    parser.add_argument("--tokens", help="a model's token list (tokens.txt, or a SentencePiece .vocab): "
                        "fail if a character of the corpus is in none of its pieces")
    parser.add_argument("--self-test", action="store_true", help="check the domain grammar and exit")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return
    if not args.out:
        parser.error("--out DIR is required (or --self-test)")
    if args.train < 1 or args.test < 1:
        parser.error("--train and --test must be at least 1")
    train, test, kinds = make_corpus(args.train, args.test, args.seed)
    sample = check(train, test, args.tokens)
    os.makedirs(args.out, exist_ok=True)
    write(train, args.out, "domain_train")
    write(test, args.out, "domain_test")
    report(train, test, kinds, sample)


if __name__ == "__main__":
    main()
