"""The token estimate every budget check uses: a documented upper bound, no tokenizer tables.

``tiktoken`` downloads its tables at run time, so the estimate is arithmetic instead, made to
over-count rather than under-count what a BPE tokenizer (cl100k, o200k, Claude's) gives:

- Chinese, Japanese and Korean characters count **one token each** (BPE tokenizers give
  0.7–1.5 per character; one is a fair ceiling for common text, and the rest of the estimate
  adds its margin on top through punctuation);
- the rest of the text counts as the larger of **characters / 3.5** (English averages about 4
  characters a token) and **words × 1.3 + symbols × 0.5** (a word is a run of letters or
  digits; a symbol any other visible character, as Markdown's ``**``, ``[[``, ``|`` are often
  tokens of their own).

The estimate is subadditive: the estimate of two texts joined is at most the sum of their
estimates (each part is a ceiling of a sum of counts), so summing the pieces of a pack bounds
the whole; ``context_pack`` still measures its final text once more.
"""

from __future__ import annotations

import math
import re

_CJK = re.compile(
    r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    r"\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]"
)
_WORD = re.compile(r"[^\W_]+")
_SYMBOL = re.compile(r"[^\w\s]|_")

CHARS_PER_TOKEN = 3.5
TOKENS_PER_WORD = 1.3
TOKENS_PER_SYMBOL = 0.5


def estimate_tokens(text: str) -> int:
    """An upper estimate of the tokens ``text`` takes (see the module's docstring)."""
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    rest = _CJK.sub(" ", text) if cjk else text
    by_chars = (len(rest) - cjk) / CHARS_PER_TOKEN  # the spaces put for CJK are not counted
    words = len(_WORD.findall(rest))
    symbols = len(_SYMBOL.findall(rest))
    by_words = words * TOKENS_PER_WORD + symbols * TOKENS_PER_SYMBOL
    return cjk + math.ceil(max(by_chars, by_words))
