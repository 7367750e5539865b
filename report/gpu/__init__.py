"""GPUs: datasheet peaks (gpu_specs) and the `gpus` table across GPUs. A GPU session's
checks on itself are the session's (scripts/lib/session_checks.py)."""
