"""No Python copy of a harness constant: what a run costs and how it is measured
(each profile's settings, the budget gate's costs) live in the binary, and
`optbench plan` prints them (harness/run_plan.h). A Python module that kept its own
copy drifted from them before (scripts/lib/estimate_wall.py's window sizes), so the
tree holds none: no module- or class-level name for one of them bound to a number.
Test data (a synthetic results file's config) is not a copy the code plans by."""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# The harness's names for its measurement settings and budget costs
# (config.measure in a results file; harness/budget_plan.cpp).
HARNESS_NAMES = (
    "max_time",
    "min_time",
    "min_samples",
    "max_samples",
    "warmup_min",
    "warmup_max",
    "target_sample",
    "target_rel_ci",
    "cold_processes",
    "min_processes",
    "max_processes",
    "process_time_share",
    "process_start",
    "cupti_setup",
    "window_estimate",
    "prepare_steps",
    "verify_reference",
    "verify_steps",
    "verify_builds",
    "child_exit_reserve",
    "max_share",
    "work_ratio",
    "cap_s",
)


def numeric(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, (ast.Dict, ast.Tuple, ast.List)):
        values = node.values if isinstance(node, ast.Dict) else node.elts
        return bool(values) and all(numeric(v) for v in values)
    return isinstance(node, ast.UnaryOp) and numeric(node.operand)


def copies(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    for scope in scopes:
        for stmt in scope.body:
            targets = (
                stmt.targets
                if isinstance(stmt, ast.Assign)
                else [stmt.target]
                if isinstance(stmt, ast.AnnAssign)
                else []
            )
            value = getattr(stmt, "value", None)
            for t in targets:
                if isinstance(t, ast.Name) and value is not None and numeric(value):
                    if any(k in t.id.lower() for k in HARNESS_NAMES):
                        found.append(f"{path.relative_to(REPO)}:{stmt.lineno} {t.id}")
    return found


def product_modules() -> list[Path]:
    tests = REPO / "report" / "tests"
    paths = list((REPO / "report").rglob("*.py")) + list((REPO / "scripts").rglob("*.py"))
    return [p for p in paths if tests not in p.parents]


def test_no_python_module_keeps_a_harness_constant():
    found = [c for p in product_modules() for c in copies(p)]
    assert not found, "copies of harness constants (read them from the binary): " + "; ".join(found)


def test_the_scan_finds_a_planted_copy():
    planted = REPO / "report" / "_planted_copy_for_test.py"
    planted.write_text("CAP_S = {'quick': 1.5, 'standard': 0.5}\nclass R:\n    warmup_max_s = 0.5\n")
    try:
        found = copies(planted)
    finally:
        planted.unlink()
    assert [f.split()[-1] for f in found] == ["CAP_S", "warmup_max_s"]
