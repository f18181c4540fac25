"""tabmcp benchmarks: one module per measure, each printing a table with its baseline."""
