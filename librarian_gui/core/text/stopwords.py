"""Stop words: the English words every scorer leaves out (``STOP_WORDS``), and the function
words of each language the concept dictionary's checks and suggestions know
(``STOP_WORDS_BY_LANGUAGE``). Two lists on purpose: a scorer drops a word that says little
about what a note is about ("really", "thing"), a check only flags an alias made of nothing
but grammar, in any of four languages."""

from __future__ import annotations

# Case-folded, apostrophes as "'" (as ``analyzer.words`` folds them).
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "almost",
        "also",
        "although",
        "always",
        "am",
        "among",
        "an",
        "and",
        "another",
        "any",
        "anyone",
        "anything",
        "are",
        "aren't",
        "around",
        "as",
        "at",
        "be",
        "became",
        "because",
        "become",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "can't",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "done",
        "down",
        "during",
        "each",
        "either",
        "else",
        "enough",
        "etc",
        "even",
        "ever",
        "every",
        "few",
        "for",
        "from",
        "further",
        "get",
        "gets",
        "got",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "least",
        "less",
        "let",
        "like",
        "many",
        "may",
        "me",
        "might",
        "mine",
        "more",
        "most",
        "much",
        "must",
        "my",
        "myself",
        "neither",
        "never",
        "no",
        "nor",
        "not",
        "nothing",
        "now",
        "of",
        "off",
        "often",
        "on",
        "once",
        "one",
        "only",
        "onto",
        "or",
        "other",
        "others",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "per",
        "perhaps",
        "please",
        "quite",
        "rather",
        "really",
        "same",
        "several",
        "shall",
        "she",
        "should",
        "shouldn't",
        "since",
        "so",
        "some",
        "something",
        "still",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they're",
        "thing",
        "things",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "to",
        "too",
        "toward",
        "towards",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "very",
        "via",
        "was",
        "wasn't",
        "we",
        "well",
        "were",
        "weren't",
        "what",
        "what's",
        "whatever",
        "when",
        "where",
        "whether",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "won't",
        "would",
        "wouldn't",
        "yet",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)


def _words(text: str) -> frozenset[str]:
    """A word list written as one block of text (the lists read better that way)."""
    return frozenset(text.split())


# Function words (articles, pronouns, prepositions, conjunctions, auxiliaries) that fill
# every page of prose in these languages: an alias made only of them tags nearly every
# note. Casefolded, as aliases are compared.
STOP_WORDS_EN = _words(
    """a about above after again against all also although am an and any are as at be
    because been before being below between both but by can could did do does doing done
    down during each either else every few for from had has have having he her here hers
    him his how i if in into is it its itself just me might more most must my neither no
    nor not now of off on once only onto or other our ours out over own per same shall
    she should so some such than that the their theirs them then there these they this
    those though through to too under until up upon us very via was we were what when
    where whether which while who whom whose why will with within without would yet you
    your yours"""
)
STOP_WORDS_DE = _words(
    """ab aber alle allem allen aller als also am an auch auf aus bei beim bin bis bist
    da damit dann das dass dein deine dem den denn der des dich die dies diese dieser
    dieses dir doch dort du durch ein eine einem einen einer eines er es euch euer für
    gegen hat hatte hatten habe haben hier ich ihm ihn ihnen ihr ihre im in ist ja jede
    jeder jetzt kann kein keine können man mein meine mich mir mit muss nach nein nicht
    noch nun nur ob oder ohne schon sehr sein seine sich sie sind so soll um und uns
    unser unter vom von vor war waren was weil wenn wer werden wie wir wird wo wurde
    wurden zu zum zur zwischen über"""
)
STOP_WORDS_FR = _words(
    """à afin ai ainsi alors après as au aucun aussi autre aux avant avec avez avoir
    avons bien car ce ceci cela celle celui ces cet cette chez comme comment d dans de
    depuis des donc dont du elle elles en encore entre est et étaient était été être eu
    fait il ils je l la le les leur leurs lui ma mais me même mes moi moins mon ne ni
    nos notre nous on ont ou où par parce pas pendant peu plus pour pourquoi qu quand que
    quel quelle qui sa sans se ses si son sont sous sur ta te tes toi ton tous tout
    toute toutes très tu un une vers vos votre vous y"""
)
STOP_WORDS_ES = _words(
    """a al algo ante antes así aunque bajo bien cada como cómo con contra cual cuál
    cuando cuándo de del desde donde dónde durante e el él ella ellas ellos en entre era
    eran es esa ese eso esta está están este esto estos estas fue fueron ha había han hasta
    hay la las le les lo los más me mi mis mismo muy nada ni no nos nosotros o os otra
    otro para pero poco por porque qué que quien quién se según ser si sí sin sino sobre
    son su sus también tan te tiene todo todos tras tu tú tus u un una uno unos usted
    ustedes y ya yo"""
)
STOP_WORDS_BY_LANGUAGE: tuple[tuple[str, frozenset[str]], ...] = (
    ("English", STOP_WORDS_EN),
    ("German", STOP_WORDS_DE),
    ("French", STOP_WORDS_FR),
    ("Spanish", STOP_WORDS_ES),
)
