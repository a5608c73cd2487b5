"""The frozen ``librarian`` command line: PyInstaller starts from a script, not an entry point."""

import sys

from librarian_gui.cli import main

sys.exit(main())
