"""The theorems of SPEC 3-7, one module per theorem (rows 1-8 of ``cogo verify``)."""
