"""The ``trending_*`` values of conf.py: declared once, checked, turned into typed values.

:mod:`.values` declares every option (default, accepted types, check, what
it rebuilds, help); :mod:`.sources` checks ``trending_sources`` entries and
:mod:`.issues` collects what is wrong.  :mod:`sphinxcontrib_trending.settings`
assembles the result for the extension and the CLI.
"""
