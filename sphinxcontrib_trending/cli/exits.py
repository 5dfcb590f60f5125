"""Exit codes every sub-command shares: 0 success, 1 the work found failures
(bad inputs, failing verdicts), 2 usage or configuration errors, 70 an
internal error (a bug: one line on stderr, the traceback in a file).

A module of its own, below the sub-commands and the dispatch that imports
them, so that neither imports the other.
"""

EXIT_FAILURES = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 70
"""EX_SOFTWARE of sysexits.h: never 1, which means "the work found failures"."""

FAILING_SUBTYPES = frozenset({"source", "parse"})
"""Problems meaning an input (or part of it) could not be read: ``export`` and
``ingest`` exit with :data:`EXIT_FAILURES`."""
