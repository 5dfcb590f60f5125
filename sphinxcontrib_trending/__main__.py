"""``python -m sphinxcontrib_trending`` runs the ``sphinx-trending`` command."""

import sys

from sphinxcontrib_trending.cli import main

sys.exit(main())
