extensions = ["sphinxcontrib_trending"]
trending_sources = {"perf": {"paths": ["data/*.jsonl"], "format": "jsonl"}}
trending_anomaly_policy = {"min_change": 0.25}
trending_known_changes = "known.toml"
exclude_patterns = ["_build"]
