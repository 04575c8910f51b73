"""Tests of the gsst package against a real server (see common.py)."""
