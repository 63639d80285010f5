"""Test tools shared by the suite's packages (no test module imports another's helpers)."""
