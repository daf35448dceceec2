"""Schedule fuzzing: random fusions and schedules as data (``case``), hypothesis strategies that draw
them (``strategies``) and the properties every case must satisfy (``properties``).

``viz fuzz`` and the fuzz tests (``tests/fuzz``) both run them; the strategies need hypothesis.
"""
