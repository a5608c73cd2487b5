"""The frozen ``librarian-gui``: PyInstaller starts from a script, not an entry point."""

import sys

from librarian_gui.app import main

sys.exit(main())
