"""The extension as shipped: where its files live and their staging (assets.py), its Firefox build
(firefox.py) and the store packages (package.py)."""
