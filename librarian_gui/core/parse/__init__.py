"""Parsing one note: the Markdown masking, the link/tag/heading parser and the records it makes."""
