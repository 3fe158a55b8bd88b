"""Tests of robotskit.batch."""
