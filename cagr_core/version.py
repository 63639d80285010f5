"""cagr's version: gate records name it, so an upgrade invalidates them.

A constant, not `importlib.metadata` (tens of milliseconds on every hook call); the package
metadata reads it from here, and a test keeps the installed metadata equal to it.
"""

VERSION = "0.1.0"
