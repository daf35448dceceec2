"""Lowering passes, one per module; ``lowering/pipeline.py`` lists them in order."""
