"""Reports of a reading: the per-block records, the aggregate over networks, the paper's measures, text, Markdown and
JSON."""
