"""Training runs over time (SPEC 5, 6, 8 per snapshot): progress measures, the peers' measures, run reading."""
