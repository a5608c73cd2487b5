"""The one analyzer: how every scorer, index and suggester splits text into words (words by
script, case folding, stop words, stemming, Chinese and Japanese bigrams). A building block:
it imports nothing else of Librarian."""
