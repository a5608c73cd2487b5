"""``python -m librarian_gui.cli`` runs the ``librarian`` command line."""

import sys

from . import main

sys.exit(main())
