"""The main job (``python -m benchmarks.run``) and the tuning sweep (``python -m benchmarks.sweep``)."""
