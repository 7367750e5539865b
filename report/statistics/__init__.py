"""The estimators the report computes or reads: each comparison's one estimate and
interval (estimate), the rounds floor, per-process spreads, pooled claims, and the
speedups claims are judged on."""
