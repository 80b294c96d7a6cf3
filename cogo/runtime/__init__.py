"""The ground floor: errors, thread counts, resource limits and executors (nothing of cogo's below it)."""
