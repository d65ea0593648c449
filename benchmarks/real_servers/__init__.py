"""Real-server benchmark set-up: private web servers and framework applications (see servers.py)."""
