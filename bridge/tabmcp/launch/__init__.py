"""Browsers with the extension: finding Chromium (browser.py), starting it for the demo, tests and
benchmarks (launcher.py), Firefox with its build (firefox_launcher.py, firefox_driver.mjs), and the
person's own agent browser (agent_browser.py: ``tabmcp extension``, ``tabmcp browser``)."""
