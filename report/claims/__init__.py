"""Checklist claims (claims.json) judged against a run: which comparisons each claim
rests on (judge), the verdict rule (verdicts), and what a verification judged
(judged)."""
