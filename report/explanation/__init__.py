"""Why a variant is faster or slower: the profiled windows read as typed explanations
(why, why_row), the rule for when one may explain a timing (why_agree), the
mechanism counters (why_counters) and the audit of what each states (why_audit)."""
