"""Renders one abstract clause or sentence as an English and a German string.

German word order follows the topological fields: the finite verb in second
position (declaratives), first position (questions, after a fronted adverbial
or subordinate clause) or last position (subordinate clauses); participles,
infinitives and separable particles close the clause.
"""

from collections import namedtuple

from lexicon import (ADJS, AUX_DE, CONTRACTIONS, MODALS, NOUNS, PRONOUNS, VERBS)

# kind: 'def' | 'indef' | 'name' | 'pron'; word: the name or the English pronoun.
NP = namedtuple("NP", "kind noun pl adj word")
# A prepositional phrase: English preposition, German preposition, German case.
PP = namedtuple("PP", "en de case np")
Clause = namedtuple("Clause", "subj verb tense modal neg obj dat pp adj")

DAT_VERBS = {"help", "answer"}  # their single object is dative

DEF_ART = {"nom": {"m": "der", "f": "die", "n": "das", "pl": "die"},
           "acc": {"m": "den", "f": "die", "n": "das", "pl": "die"},
           "dat": {"m": "dem", "f": "der", "n": "dem", "pl": "den"}}
INDEF_ART = {"nom": {"m": "ein", "f": "eine", "n": "ein"},
             "acc": {"m": "einen", "f": "eine", "n": "ein"},
             "dat": {"m": "einem", "f": "einer", "n": "einem"}}
# Adjective endings after the definite article (weak) and after ein/kein (mixed).
WEAK_END = {"nom": {"m": "e", "f": "e", "n": "e", "pl": "en"},
            "acc": {"m": "en", "f": "e", "n": "e", "pl": "en"},
            "dat": {"m": "en", "f": "en", "n": "en", "pl": "en"}}
MIXED_END = {"nom": {"m": "er", "f": "e", "n": "es"},
             "acc": {"m": "en", "f": "e", "n": "es"},
             "dat": {"m": "en", "f": "en", "n": "en"}}
PERSON_INDEX = {"1sg": 0, "3sg": 1, "1pl": 2, "3pl": 2}


def np_def(noun, adj=None, pl=False):
    return NP("def", noun, pl, adj, None)


def np_indef(noun, adj=None):
    return NP("indef", noun, False, adj, None)


def np_name(name):
    return NP("name", None, False, None, name)


def np_pron(pronoun):
    return NP("pron", None, False, None, pronoun)


def clause(subj, verb, tense="pres", modal=None, neg=False, obj=None, dat=None, pp=None, adj=None):
    return Clause(subj, verb, tense, modal, neg, obj, dat, pp, adj)


def person_of(np):
    if np.kind == "pron":
        return PRONOUNS[np.word][1]
    return "3pl" if np.pl else "3sg"


# ---------------------------------------------------------------- noun phrases

def _adj_form(adj, ending):
    stem = adj.stem or adj.de
    if stem.endswith("e") and ending.startswith("e"):
        return stem + ending[1:]  # müde + en -> müden
    return stem + ending


def _noun_form(noun, case, pl):
    if pl:
        if case == "dat" and not noun.de_pl.endswith(("n", "s")):
            return noun.de_pl + "n"  # dative plural -n: den Kindern
        return noun.de_pl
    if noun.weak and case != "nom":
        return noun.de + ("n" if noun.de.endswith("e") else "en")  # den Jungen, dem Studenten
    return noun.de


def de_np(np, case, kein=False):
    """German NP in `case`; kein=True turns the indefinite article into kein-."""
    if np.kind == "name":
        return np.word
    if np.kind == "pron":
        assert case == "nom", "pronouns are generated as subjects only"
        return PRONOUNS[np.word][0]
    noun = NOUNS[np.noun]
    key = "pl" if np.pl else noun.gender
    if np.kind == "def":
        art, endings = DEF_ART[case][key], WEAK_END
    else:
        art, endings = INDEF_ART[case][key], MIXED_END
        art = "k" + art if kein else art
    words = [art]
    if np.adj:
        words.append(_adj_form(ADJS[np.adj], endings[case][key]))
    words.append(_noun_form(noun, case, np.pl))
    return " ".join(words)


def en_np(np):
    if np.kind in ("name", "pron"):
        return np.word
    noun = NOUNS[np.noun]
    head = noun.en_pl if np.pl else noun.en
    words = ([ADJS[np.adj].en] if np.adj else []) + [head]
    if np.kind == "def":
        return " ".join(["the"] + words)
    return " ".join(["an" if words[0][0] in "aeiou" else "a"] + words)


def de_pp(pp):
    words = de_np(pp.np, pp.case).split(" ")
    short = CONTRACTIONS.get((pp.de, words[0])) if pp.np.kind == "def" and not pp.np.pl else None
    return " ".join([short] + words[1:]) if short else " ".join([pp.de] + words)


def en_pp(pp):
    return pp.en + " " + en_np(pp.np)


# --------------------------------------------------------------------- clauses

def _de_verb(cl):
    """(finite verb, right bracket words, separable particle joined in verb-final order)."""
    idx = PERSON_INDEX[person_of(cl.subj)]
    if cl.verb == "be":
        return AUX_DE["sein"][idx], [], ""
    verb = VERBS[cl.verb]
    if cl.modal:
        return MODALS[cl.modal][idx], [verb.prefix + verb.de_inf], ""
    if cl.tense == "perf":
        return AUX_DE[verb.aux][idx], [verb.prefix + verb.de_part], ""
    return (verb.de_s1, verb.de_s3, verb.de_inf)[idx], [], verb.prefix


def _de_fields(cl):
    """Middle field split around the slot of 'nicht': (before, after)."""
    pp = [de_pp(cl.pp)] if cl.pp else []
    if cl.verb == "be":
        pred = [ADJS[cl.adj].de] if cl.adj else pp
        return ([], pred) if cl.neg else (pred, [])
    dat = [de_np(cl.dat, "dat")] if cl.dat else []
    if cl.obj is None:
        return (dat, pp) if cl.neg else (dat + pp, [])
    case = "dat" if cl.verb in DAT_VERBS else "acc"
    if cl.neg and cl.obj.kind == "indef":
        assert case == "acc", "negated indefinite dative objects are not generated"
        return dat + [de_np(cl.obj, case, kein=True)] + pp, []  # kein- replaces nicht
    obj = [de_np(cl.obj, case)]
    return (dat + obj, pp) if cl.neg else (dat + obj + pp, [])


def de_clause(cl, order):
    """order: 'v2' (subject first), 'v1' (finite verb first) or 'final' (subordinate)."""
    fin, right, particle = _de_verb(cl)
    subj = de_np(cl.subj, "nom")
    before, after = _de_fields(cl)
    middle = before + (["nicht"] if cl.neg and not _kein_used(cl) else []) + after
    if order == "final":
        words = [subj] + middle + right + [particle + fin]
    else:
        head = [subj, fin] if order == "v2" else [fin, subj]
        words = head + middle + right + ([particle] if particle else [])
    return " ".join(words)


def _kein_used(cl):
    return cl.verb != "be" and cl.obj is not None and cl.obj.kind == "indef" \
        and cl.verb not in DAT_VERBS


def _en_verb(cl, question):
    """(words before the subject, words after it); only questions fill the first."""
    person = person_of(cl.subj)
    third = person == "3sg"
    do = "does" if third else "do"
    neg = ["not"] if cl.neg else []
    if cl.verb == "be":
        aux, rest = [{"1sg": "am", "3sg": "is"}.get(person, "are")], neg
    else:
        verb = VERBS[cl.verb]
        if cl.modal == "want" and (cl.neg or question):
            aux, rest = [do], neg + ["want", "to", verb.en]
        elif cl.modal == "want":
            aux, rest = [], ["wants" if third else "want", "to", verb.en]
        elif cl.modal:
            assert not (cl.neg and cl.modal == "must"), "'must not' is not 'muss nicht'"
            aux, rest = (["cannot"], [verb.en]) if cl.neg else ([cl.modal], [verb.en])
        elif cl.tense == "perf":
            aux, rest = ["has" if third else "have"], neg + [verb.en_part]
        elif cl.neg or question:
            aux, rest = [do], neg + [verb.en]
        else:
            aux, rest = [], [verb.en_s3 if third else verb.en]
    return (aux, rest) if question else ([], aux + rest)


def en_clause(cl, question=False):
    pre, post = _en_verb(cl, question)
    if cl.verb == "be":
        comp = [ADJS[cl.adj].en] if cl.adj else [en_pp(cl.pp)]
    else:
        comp = [en_np(x) for x in (cl.dat, cl.obj) if x is not None]
        comp += [en_pp(cl.pp)] if cl.pp else []
    return " ".join(pre + [en_np(cl.subj)] + post + comp)


# ------------------------------------------------------------------- sentences

CONJ = {"because": "weil", "although": "obwohl", "if": "wenn"}
THAT_VERBS = ("say", "know", "think")


def _cap(text):
    return text[0].upper() + text[1:]


def s_plain(cl):
    return _cap(en_clause(cl)) + ".", _cap(de_clause(cl, "v2")) + "."


def s_question(cl):
    return _cap(en_clause(cl, question=True)) + "?", _cap(de_clause(cl, "v1")) + "?"


def s_time(time_en, time_de, cl):
    """Fronted time adverbial: German inverts subject and finite verb (verb second)."""
    return (_cap(time_en) + " " + en_clause(cl) + ".",
            _cap(time_de) + " " + de_clause(cl, "v1") + ".")


def s_sub_after(main, conj, sub):
    en = _cap(en_clause(main)) + " " + conj + " " + en_clause(sub) + "."
    de = _cap(de_clause(main, "v2")) + ", " + CONJ[conj] + " " + de_clause(sub, "final") + "."
    return en, de


def s_sub_before(conj, sub, main):
    """Fronted subordinate clause: it fills the first field, so the main clause is verb-first."""
    en = _cap(conj) + " " + en_clause(sub) + ", " + en_clause(main) + "."
    de = _cap(CONJ[conj]) + " " + de_clause(sub, "final") + ", " + de_clause(main, "v1") + "."
    return en, de


def s_that(matrix, sub):
    """matrix: a clause of say/know/think without complements."""
    assert matrix.verb in THAT_VERBS
    en = _cap(en_clause(matrix)) + " that " + en_clause(sub) + "."
    de = _cap(de_clause(matrix, "v2")) + ", dass " + de_clause(sub, "final") + "."
    return en, de
