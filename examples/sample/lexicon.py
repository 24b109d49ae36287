"""Lexicon of the sample-corpus grammar: every English word with its one German rendering.

Each English lemma maps to exactly one German lemma so that the translation is a
function of the English sentence (the corpus must be learnable by a small model).
"""

from collections import namedtuple

# weak: masculine n-declension, whose accusative/dative singular take -(e)n.
Noun = namedtuple("Noun", "en en_pl gender de de_pl weak")
Adj = namedtuple("Adj", "en de stem")  # stem: the declined stem when it differs (teuer -> teur-)
# German forms: inf, s1 (ich), s3 (er/sie), part; aux 'haben'|'sein'; prefix: separable particle.
Verb = namedtuple("Verb", "en en_s3 en_part de_inf de_s1 de_s3 de_part aux prefix")


def _noun(en, en_pl, gender, de, de_pl, weak=False):
    return Noun(en, en_pl, gender, de, de_pl, weak)


NOUNS = {n.en: n for n in [
    # people
    _noun("man", "men", "m", "Mann", "Männer"),
    _noun("woman", "women", "f", "Frau", "Frauen"),
    _noun("child", "children", "n", "Kind", "Kinder"),
    _noun("boy", "boys", "m", "Junge", "Jungen", weak=True),
    _noun("girl", "girls", "n", "Mädchen", "Mädchen"),
    _noun("teacher", "teachers", "m", "Lehrer", "Lehrer"),
    _noun("doctor", "doctors", "m", "Arzt", "Ärzte"),
    _noun("student", "students", "m", "Student", "Studenten", weak=True),
    _noun("friend", "friends", "m", "Freund", "Freunde"),
    _noun("grandmother", "grandmothers", "f", "Großmutter", "Großmütter"),
    _noun("brother", "brothers", "m", "Bruder", "Brüder"),
    _noun("sister", "sisters", "f", "Schwester", "Schwestern"),
    # animals
    _noun("dog", "dogs", "m", "Hund", "Hunde"),
    _noun("cat", "cats", "f", "Katze", "Katzen"),
    _noun("horse", "horses", "n", "Pferd", "Pferde"),
    _noun("bird", "birds", "m", "Vogel", "Vögel"),
    _noun("mouse", "mice", "f", "Maus", "Mäuse"),
    # things (bread has no plural here: English "breads" is odd)
    _noun("book", "books", "n", "Buch", "Bücher"),
    _noun("letter", "letters", "m", "Brief", "Briefe"),
    _noun("apple", "apples", "m", "Apfel", "Äpfel"),
    _noun("bread", None, "n", "Brot", None),
    _noun("cake", "cakes", "m", "Kuchen", "Kuchen"),
    _noun("ball", "balls", "m", "Ball", "Bälle"),
    _noun("car", "cars", "n", "Auto", "Autos"),
    _noun("door", "doors", "f", "Tür", "Türen"),
    _noun("window", "windows", "n", "Fenster", "Fenster"),
    _noun("key", "keys", "m", "Schlüssel", "Schlüssel"),
    _noun("cup", "cups", "f", "Tasse", "Tassen"),
    _noun("flower", "flowers", "f", "Blume", "Blumen"),
    _noun("newspaper", "newspapers", "f", "Zeitung", "Zeitungen"),
    _noun("picture", "pictures", "n", "Bild", "Bilder"),
    _noun("bag", "bags", "f", "Tasche", "Taschen"),
    _noun("box", "boxes", "f", "Kiste", "Kisten"),
    _noun("gift", "gifts", "n", "Geschenk", "Geschenke"),
    _noun("song", "songs", "n", "Lied", "Lieder"),
    # places and furniture (used in the singular only)
    _noun("house", None, "n", "Haus", None),
    _noun("garden", None, "m", "Garten", None),
    _noun("park", None, "m", "Park", None),
    _noun("school", None, "f", "Schule", None),
    _noun("kitchen", None, "f", "Küche", None),
    _noun("city", None, "f", "Stadt", None),
    _noun("forest", None, "m", "Wald", None),
    _noun("shop", None, "m", "Laden", None),
    _noun("room", None, "n", "Zimmer", None),
    _noun("station", None, "m", "Bahnhof", None),
    _noun("table", None, "m", "Tisch", None),
    _noun("chair", None, "m", "Stuhl", None),
    _noun("bed", None, "n", "Bett", None),
    _noun("tree", None, "m", "Baum", None),
]}

PEOPLE = ["man", "woman", "child", "boy", "girl", "teacher", "doctor", "student",
          "friend", "grandmother", "brother", "sister"]
ANIMALS = ["dog", "cat", "horse", "bird", "mouse"]
NAMES = ["Anna", "Maria", "Peter", "Paul"]

ADJS = {a.en: a for a in [
    Adj("old", "alt", None), Adj("young", "jung", None), Adj("tired", "müde", None),
    Adj("hungry", "hungrig", None), Adj("friendly", "freundlich", None),
    Adj("happy", "glücklich", None), Adj("clever", "klug", None), Adj("sad", "traurig", None),
    Adj("small", "klein", None), Adj("big", "groß", None), Adj("new", "neu", None),
    Adj("red", "rot", None), Adj("blue", "blau", None), Adj("green", "grün", None),
    Adj("black", "schwarz", None), Adj("beautiful", "schön", None),
    Adj("heavy", "schwer", None), Adj("expensive", "teuer", "teur"),
    Adj("cheap", "billig", None), Adj("good", "gut", None),
]}

# Which adjectives make sense with which kind of noun.
ADJ_PERSON = ["old", "young", "tired", "hungry", "friendly", "happy", "clever", "sad", "small", "big"]
ADJ_ANIMAL = ["old", "young", "tired", "hungry", "small", "big", "black", "beautiful"]
ADJ_THING = ["old", "new", "red", "blue", "green", "black", "big", "small", "beautiful",
             "heavy", "expensive", "cheap", "good"]
ADJ_PLACE = ["old", "new", "big", "small", "beautiful"]


def _verb(en, en_s3, en_part, de_inf, de_s1, de_s3, de_part, aux="haben", prefix=""):
    return Verb(en, en_s3, en_part, de_inf, de_s1, de_s3, de_part, aux, prefix)


VERBS = {v.en: v for v in [
    _verb("see", "sees", "seen", "sehen", "sehe", "sieht", "gesehen"),
    _verb("read", "reads", "read", "lesen", "lese", "liest", "gelesen"),
    _verb("write", "writes", "written", "schreiben", "schreibe", "schreibt", "geschrieben"),
    _verb("buy", "buys", "bought", "kaufen", "kaufe", "kauft", "gekauft"),
    _verb("eat", "eats", "eaten", "essen", "esse", "isst", "gegessen"),
    _verb("find", "finds", "found", "finden", "finde", "findet", "gefunden"),
    _verb("hear", "hears", "heard", "hören", "höre", "hört", "gehört"),
    _verb("visit", "visits", "visited", "besuchen", "besuche", "besucht", "besucht"),
    _verb("wash", "washes", "washed", "waschen", "wasche", "wäscht", "gewaschen"),
    _verb("paint", "paints", "painted", "malen", "male", "malt", "gemalt"),
    _verb("bake", "bakes", "baked", "backen", "backe", "backt", "gebacken"),
    _verb("sing", "sings", "sung", "singen", "singe", "singt", "gesungen"),
    _verb("open", "opens", "opened", "machen", "mache", "macht", "gemacht", prefix="auf"),
    _verb("close", "closes", "closed", "machen", "mache", "macht", "gemacht", prefix="zu"),
    _verb("call", "calls", "called", "rufen", "rufe", "ruft", "gerufen", prefix="an"),
    _verb("pick up", "picks up", "picked up", "holen", "hole", "holt", "geholt", prefix="ab"),
    _verb("give", "gives", "given", "geben", "gebe", "gibt", "gegeben"),
    _verb("show", "shows", "shown", "zeigen", "zeige", "zeigt", "gezeigt"),
    _verb("bring", "brings", "brought", "bringen", "bringe", "bringt", "gebracht"),
    _verb("send", "sends", "sent", "schicken", "schicke", "schickt", "geschickt"),
    _verb("help", "helps", "helped", "helfen", "helfe", "hilft", "geholfen"),
    _verb("answer", "answers", "answered", "antworten", "antworte", "antwortet", "geantwortet"),
    _verb("sleep", "sleeps", "slept", "schlafen", "schlafe", "schläft", "geschlafen"),
    _verb("play", "plays", "played", "spielen", "spiele", "spielt", "gespielt"),
    _verb("work", "works", "worked", "arbeiten", "arbeite", "arbeitet", "gearbeitet"),
    _verb("get up", "gets up", "got up", "stehen", "stehe", "steht", "gestanden",
          aux="sein", prefix="auf"),
    _verb("go", "goes", "gone", "gehen", "gehe", "geht", "gegangen", aux="sein"),
    _verb("run", "runs", "run", "laufen", "laufe", "läuft", "gelaufen", aux="sein"),
    _verb("drive", "drives", "driven", "fahren", "fahre", "fährt", "gefahren", aux="sein"),
    _verb("come", "comes", "come", "kommen", "komme", "kommt", "gekommen", aux="sein"),
    _verb("put", "puts", "put", "legen", "lege", "legt", "gelegt"),
    _verb("wait", "waits", "waited", "warten", "warte", "wartet", "gewartet"),
    _verb("say", "says", "said", "sagen", "sage", "sagt", "gesagt"),
    _verb("know", "knows", "known", "wissen", "weiß", "weiß", "gewusst"),
    _verb("think", "thinks", "thought", "denken", "denke", "denkt", "gedacht"),
]}

# Auxiliaries, copula and modals: German present forms (ich, er/sie, wir/sie).
AUX_DE = {"haben": ("habe", "hat", "haben"), "sein": ("bin", "ist", "sind")}
MODALS = {  # English key -> German (ich, er, wir)
    "can": ("kann", "kann", "können"),
    "must": ("muss", "muss", "müssen"),
    "want": ("will", "will", "wollen"),
}

# Subject pronouns: English, German, person key.
PRONOUNS = {"I": ("ich", "1sg"), "he": ("er", "3sg"), "she": ("sie", "3sg"),
            "we": ("wir", "1pl"), "they": ("sie", "3pl")}

# Fronted time adverbials, by the tenses they fit in English.
TIME_PRESENT = {"today": "heute", "now": "jetzt", "tomorrow": "morgen", "every day": "jeden Tag",
                "in the morning": "am Morgen", "in the evening": "am Abend",
                "on Sunday": "am Sonntag", "sometimes": "manchmal", "often": "oft"}
TIME_PERFECT = {"today": "heute", "this week": "diese Woche", "this year": "dieses Jahr"}

# Prepositions: English -> (German, case). Two-way prepositions appear twice,
# once as location (dative) and once as direction (accusative).
PREP_LOC = {"in": ("in", "dat"), "on": ("auf", "dat"), "under": ("unter", "dat"),
            "next to": ("neben", "dat"), "behind": ("hinter", "dat"), "with": ("mit", "dat")}
PREP_DIR = {"into": ("in", "acc"), "to": ("zu", "dat"), "through": ("durch", "acc"),
            "on": ("auf", "acc"), "under": ("unter", "acc"), "next to": ("neben", "acc"),
            "for": ("für", "acc")}

# Standard contractions of preposition + definite article.
CONTRACTIONS = {("in", "dem"): "im", ("in", "das"): "ins", ("zu", "dem"): "zum",
                ("zu", "der"): "zur"}
