"""optbench report: results JSON -> tables, plots, claim verdicts, regression gate."""
