"""Why a variant is faster or slower: the profiled windows read as typed explanations
(why, why_row), the rule for when one may explain a timing (why_agree) and the
mechanism counters (why_counters); the audit of what each states is the tests'
(report/tests/why_audit.py)."""
