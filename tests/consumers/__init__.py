"""Consumer tests: real programs (bibtex, biber, citeproc, rispy) judge citekit's output."""
