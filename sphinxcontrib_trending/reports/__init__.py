"""Verdicts written for people and machines: stdout table, JSON, JUnit XML."""
