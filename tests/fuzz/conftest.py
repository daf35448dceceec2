"""The fuzz tier loads its hypothesis profile (``HYPOTHESIS_PROFILE``: ci, long or dev; see profiles.py)."""

from . import profiles

profiles.load()
