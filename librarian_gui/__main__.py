"""``python -m librarian_gui`` starts the desktop app."""

import sys

from .app import main

sys.exit(main())
