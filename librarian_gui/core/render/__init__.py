"""The preview's HTML: rendered notes, concept pages and the pages for what is not a note."""
