"""Librarian: a desktop knowledge browser for a vault of Markdown notes."""

__version__ = "0.1.0"
