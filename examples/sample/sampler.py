"""Draws random abstract sentences from the grammar, with selectional restrictions.

Only `random.Random.random`, `.choice` and `.shuffle` are used: their output for a
given seed is stable across Python 3 versions, so the corpus is reproducible.
"""

import grammar as g
from lexicon import (ADJ_ANIMAL, ADJ_PERSON, ADJ_PLACE, ADJ_THING, ANIMALS, NAMES, NOUNS,
                     PEOPLE, TIME_PERFECT, TIME_PRESENT)

PA = PEOPLE + ANIMALS
PLACES_IN = ["house", "garden", "park", "school", "kitchen", "room", "city", "forest", "shop"]
SMALL_THINGS = ["book", "letter", "apple", "cake", "ball", "key", "cup", "flower",
                "newspaper", "picture", "gift"]

# verb -> (subject nouns, object nouns); people subjects also allow names and pronouns.
TRANSITIVE = {
    "see": (PA, PA + ["car", "ball", "flower", "house", "tree", "picture", "bag"]),
    "hear": (PA, PA + ["song"]),
    "read": (PEOPLE, ["book", "letter", "newspaper"]),
    "write": (PEOPLE, ["letter", "book", "song"]),
    "buy": (PEOPLE, ["book", "apple", "bread", "cake", "ball", "car", "cup", "flower",
                     "newspaper", "bag", "gift", "picture", "box"]),
    "eat": (PA, ["apple", "bread", "cake"]),
    "find": (PA, ["key", "ball", "book", "letter", "bag", "cup", "cat", "dog", "mouse",
                  "picture", "gift", "box"]),
    "visit": (PEOPLE, PEOPLE + ["city", "school"]),
    "wash": (PEOPLE, ["car", "dog", "horse", "cup", "apple", "child"]),
    "paint": (PEOPLE, ["picture", "flower", "house", "dog", "cat", "horse", "bird", "tree"]),
    "bake": (PEOPLE, ["cake", "bread"]),
    "sing": (PEOPLE, ["song"]),
    "open": (PEOPLE, ["door", "window", "box", "bag"]),
    "close": (PEOPLE, ["door", "window", "box", "bag"]),
    "call": (PEOPLE, PEOPLE),
    "pick up": (PEOPLE, PEOPLE),
    "help": (PEOPLE, PA),
    "answer": (PEOPLE, PEOPLE),
}
# Optional place where the action happens ("in the garden"), and beneficiaries ("for").
TRANSITIVE_LOC = {"read": ["garden", "park", "kitchen", "room", "school", "house"],
                  "eat": ["kitchen", "garden", "park", "room"],
                  "write": ["kitchen", "room", "school"],
                  "paint": ["garden", "park", "room", "school"],
                  "find": ["garden", "park", "house", "kitchen", "room", "forest", "car"],
                  "see": ["park", "garden", "forest", "city", "school", "shop"]}
BENEFACTIVE = ["buy", "bake", "paint", "write", "sing"]
DITRANSITIVE = {"give": SMALL_THINGS + ["bread", "bag", "box"],
                "show": ["picture", "book", "letter", "car", "key", "flower", "gift", "house"],
                "bring": ["apple", "bread", "cake", "cup", "newspaper", "letter", "key", "gift",
                          "flower", "book", "ball"],
                "send": ["letter", "gift", "book", "picture", "flower"]}
# verb -> (subjects, [(English preposition, German, case, nouns)])
INTRANSITIVE = {
    "sleep": (PA, [("in", "in", "dat", ["house", "room", "bed", "garden", "car"]),
                   ("on", "auf", "dat", ["bed", "chair"]),
                   ("under", "unter", "dat", ["tree", "table"]),
                   ("next to", "neben", "dat", ["door", "window"])]),
    "play": (PEOPLE + ["dog", "cat"],
             [("in", "in", "dat", ["garden", "park", "house", "room", "school", "forest"]),
              ("behind", "hinter", "dat", ["house", "school", "tree"]),
              ("with", "mit", "dat", ["ball", "dog", "cat", "child", "friend", "girl", "boy"])]),
    "work": (PEOPLE, [("in", "in", "dat", ["garden", "school", "kitchen", "city", "shop", "forest"]),
                      ("with", "mit", "dat", PEOPLE)]),
    "sing": (PEOPLE + ["bird"], [("in", "in", "dat", ["kitchen", "garden", "room", "school", "park"]),
                                 ("with", "mit", "dat", PEOPLE)]),
    "get up": (PEOPLE, []),
}
_TO = ("to", "zu", "dat")
_INTO = ("into", "in", "acc")
_THROUGH = ("through", "durch", "acc")
MOTION = {
    "go": (PA, [_TO + (["station", "school", "park", "shop", "doctor", "teacher", "grandmother",
                        "friend"],), _INTO + (PLACES_IN,), _THROUGH + (["park", "forest", "city"],)]),
    "run": (PA, [_TO + (["station", "school", "tree", "door", "friend"],),
                 _INTO + (["house", "garden", "kitchen", "room", "forest", "park"],),
                 _THROUGH + (["park", "forest", "garden"],)]),
    "drive": (PEOPLE, [_TO + (["station", "school", "shop", "doctor", "grandmother"],),
                       _INTO + (["city", "forest"],), _THROUGH + (["city", "forest"],)]),
    "come": (PA, [_TO + (["station", "school", "teacher", "doctor"],),
                  _INTO + (["kitchen", "room", "house", "garden", "school", "shop"],)]),
}
PUT_PLACES = [("on", "auf", "acc", ["table", "chair", "bed"]), ("into", "in", "acc", ["bag", "box"]),
              ("under", "unter", "acc", ["table", "chair", "bed"]),
              ("next to", "neben", "acc", ["door", "window", "table", "chair", "bed"])]
WHERE = [("in", "in", "dat", ["kitchen", "garden", "house", "room", "car", "bag", "box"]),
         ("on", "auf", "dat", ["table", "chair", "bed"]),
         ("under", "unter", "dat", ["table", "chair", "bed", "tree"]),
         ("next to", "neben", "dat", ["door", "window", "table", "chair", "bed", "tree", "car"]),
         ("behind", "hinter", "dat", ["door", "tree", "house", "car"])]
WHERE_PEOPLE = [("in", "in", "dat", PLACES_IN), ("next to", "neben", "dat", ["door", "tree", "car"]),
                ("behind", "hinter", "dat", ["house", "tree", "car"])]

FRAMES = [("transitive", 30), ("ditransitive", 11), ("intransitive", 15), ("motion", 14),
          ("put", 7), ("wait", 5), ("copula_adj", 11), ("copula_loc", 7)]
SENTENCES = [("plain", 32), ("time", 16), ("question", 10), ("sub_after", 14),
             ("sub_before", 12), ("that", 16)]


def adjectives_for(noun):
    if noun == "song":
        return ["new", "old", "beautiful", "good"]
    if noun in PEOPLE:
        return ADJ_PERSON
    if noun in ANIMALS:
        return ADJ_ANIMAL
    return ADJ_PLACE if NOUNS[noun].en_pl is None and noun != "bread" else ADJ_THING


class Sampler:
    def __init__(self, rng):
        self.rng = rng
        self.adj_p = 0.3

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return self.rng.choice(seq)

    def weighted(self, table):
        total = sum(w for _, w in table)
        x = self.rng.random() * total
        for item, w in table:
            x -= w
            if x < 0:
                return item
        return table[-1][0]

    def noun_np(self, nouns, indef_p, pl_p, avoid=None, adj_avoid=None):
        noun = self.pick([n for n in nouns if n != avoid])
        adjs = [a for a in adjectives_for(noun) if a != adj_avoid]
        adj = self.pick(adjs) if self.chance(self.adj_p) else None
        if self.chance(indef_p):
            return g.np_indef(noun, adj)
        pl = NOUNS[noun].en_pl is not None and self.chance(pl_p)
        return g.np_def(noun, adj, pl)

    def subject(self, nouns):
        people = nouns[0] in PEOPLE
        if people and self.chance(0.2):
            return g.np_pron(self.pick(["I", "he", "she", "we", "they"]))
        if people and self.chance(0.15):
            return g.np_name(self.pick(NAMES))
        return self.noun_np(nouns, indef_p=0.12, pl_p=0.3)

    def obj(self, nouns, avoid=None, indef_p=0.35):
        if nouns[0] in PEOPLE and self.chance(0.12):
            return g.np_name(self.pick(NAMES))
        return self.noun_np(nouns, indef_p=indef_p, pl_p=0.2, avoid=avoid)

    def pp(self, options, avoid=None, indef_p=0.1):
        en, de, case, nouns = self.pick(options)
        if nouns[0] in PEOPLE and self.chance(0.15):
            return g.PP(en, de, case, g.np_name(self.pick(NAMES)))
        return g.PP(en, de, case, self.noun_np(nouns, indef_p=indef_p, pl_p=0.15, avoid=avoid))

    def verb_form(self, allow_perfect=True):
        """(tense, modal, neg) for a clause with a lexical verb."""
        x = self.rng.random()
        tense, modal = ("perf", None) if allow_perfect and x < 0.3 else ("pres", None)
        if 0.3 <= x < 0.5:
            modal = self.weighted([("can", 4), ("want", 4), ("must", 2)])
        neg = modal != "must" and self.chance(0.25)
        return tense, modal, neg

    def clause(self, allow_perfect=True, allow_neg=True):
        frame = self.weighted(FRAMES)
        tense, modal, neg = self.verb_form(allow_perfect)
        neg = neg and allow_neg
        return getattr(self, "f_" + frame)(tense, modal, neg)

    def f_transitive(self, tense, modal, neg):
        verb = self.pick(list(TRANSITIVE))
        subjects, objects = TRANSITIVE[verb]
        subj = self.subject(subjects)
        # Negated indefinite dative objects ("keiner Frau") are avoided: not the neutral wording.
        dative = verb in g.DAT_VERBS
        obj = self.obj(objects, avoid=subj.noun, indef_p=0.0 if dative and neg else 0.35)
        pp = None
        if not neg and verb in TRANSITIVE_LOC and self.chance(0.3):
            pp = self.pp([("in", "in", "dat", TRANSITIVE_LOC[verb])])
        elif not neg and verb in BENEFACTIVE and self.chance(0.3):
            pp = self.pp([("for", "für", "acc", PEOPLE)], avoid=subj.noun)
        return g.clause(subj, verb, tense, modal, neg, obj=obj, pp=pp)

    def f_ditransitive(self, tense, modal, neg):
        verb = self.pick(list(DITRANSITIVE))
        subj = self.subject(PEOPLE)
        # The recipient is definite: with an indefinite recipient German prefers another order.
        if self.chance(0.15):
            dat = g.np_name(self.pick(NAMES))
        else:
            dat = self.noun_np(PEOPLE, indef_p=0.0, pl_p=0.2, avoid=subj.noun)
        obj = self.obj(DITRANSITIVE[verb])
        return g.clause(subj, verb, tense, modal, neg, obj=obj, dat=dat)

    def f_intransitive(self, tense, modal, neg):
        verb = self.pick(list(INTRANSITIVE))
        subjects, places = INTRANSITIVE[verb]
        subj = self.subject(subjects)
        pp = self.pp(places, avoid=subj.noun) if places and self.chance(0.6) else None
        return g.clause(subj, verb, tense, modal, neg, pp=pp)

    def f_motion(self, tense, modal, neg):
        verb = self.pick(list(MOTION))
        subjects, goals = MOTION[verb]
        subj = self.subject(subjects)
        return g.clause(subj, verb, tense, modal, neg, pp=self.pp(goals, avoid=subj.noun))

    def f_put(self, tense, modal, neg):
        subj = self.subject(PEOPLE)
        obj = self.obj(SMALL_THINGS + ["bag", "box"])
        return g.clause(subj, "put", tense, modal, neg, obj=obj, pp=self.pp(PUT_PLACES, avoid=obj.noun))

    def f_wait(self, tense, modal, neg):
        subj = self.subject(PA)
        pp = self.pp([("for", "auf", "acc", PA)], avoid=subj.noun)
        return g.clause(subj, "wait", tense, modal, neg, pp=pp)

    def f_copula_adj(self, tense, modal, neg):
        kind = self.weighted([(PEOPLE, 5), (ANIMALS, 3), (SMALL_THINGS + ["car", "house"], 3)])
        saved, self.adj_p = self.adj_p, 0.0  # no "the black picture is green"
        subj = self.subject(kind)
        self.adj_p = saved
        noun = subj.noun or "man"  # names and pronouns are people
        adj = self.pick(adjectives_for(noun))
        return g.clause(subj, "be", neg=neg, adj=adj)

    def f_copula_loc(self, tense, modal, neg):
        kind = self.weighted([(PEOPLE, 3), (ANIMALS, 3), (SMALL_THINGS + ["bag"], 4)])
        subj = self.subject(kind)
        places = WHERE_PEOPLE if kind is PEOPLE else WHERE
        return g.clause(subj, "be", neg=neg, pp=self.pp(places, avoid=subj.noun))

    def sentence(self):
        """One random sentence pair and the name of its construction."""
        kind = self.weighted(SENTENCES)
        self.adj_p = 0.3 if kind in ("plain", "time", "question") else 0.12
        if kind == "plain":
            return kind, g.s_plain(self.clause())
        if kind == "question":
            return kind, g.s_question(self.clause(allow_neg=False))
        if kind == "time":
            cl = self.clause()
            times = TIME_PERFECT if cl.tense == "perf" else TIME_PRESENT
            en = self.pick(list(times))
            return kind, g.s_time(en, times[en], cl)
        if kind == "that":
            verb = self.pick(list(g.THAT_VERBS))
            tense = "perf" if verb == "say" and self.chance(0.3) else "pres"
            return kind, g.s_that(g.clause(self.subject(PEOPLE), verb, tense), self.clause())
        conj = self.pick(["because", "although"] if kind == "sub_after" else ["if", "because"])
        perfect = conj != "if"  # "if" clauses stay in the present, as does their main clause
        main, sub = self.clause(perfect), self.clause(perfect)
        if kind == "sub_after":
            return kind, g.s_sub_after(main, conj, sub)
        return kind, g.s_sub_before(conj, sub, main)
