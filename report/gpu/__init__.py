"""GPUs: datasheet peaks (gpu_specs), the `gpus` table across GPUs, and a GPU session's
checks on itself (session_checks)."""
