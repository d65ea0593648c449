"""A simulated web for the demo crawl and the tests: several hosts on one loopback port."""
