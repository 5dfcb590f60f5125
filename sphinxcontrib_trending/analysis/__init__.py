"""MDL grouping, anomalies, trend compliance and verdicts.  Never imports Sphinx."""
