"""The ``trending_*`` values of conf.py: declared once, checked, turned into typed values.

:mod:`.values` declares every option as an :class:`.option.Option` (default,
accepted types, check, what it rebuilds, help); :mod:`.checks` and
:mod:`.sources` turn accepted values into typed ones and :mod:`.issues`
collects what is wrong.  :mod:`sphinxcontrib_trending.settings` assembles the
result for the extension and the CLI.
"""
