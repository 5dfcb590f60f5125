extensions = ["sphinxcontrib_trending"]
trending_sources = {"perf": {"paths": ["data/*.jsonl"], "format": "jsonl"}}
exclude_patterns = ["_build"]
