"""Real-server benchmark set-up: private Apache and nginx instances (see servers.py)."""
