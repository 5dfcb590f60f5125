extensions = ["sphinxcontrib_trending"]
trending_sources = {
    "perf": {"paths": ["data/*.jsonl"], "format": "jsonl"},
    "broken": {"paths": [], "format": "jsonl"},
}
trending_plotlyjs = "ftp://nowhere"
exclude_patterns = ["_build"]
