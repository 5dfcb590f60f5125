"""Sources -> parsed, normalised builds.  Never imports Sphinx."""
