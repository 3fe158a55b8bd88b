"""Integration tests: robotskit's fetch adapters and clients against real servers on 127.0.0.1."""
