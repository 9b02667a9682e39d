"""The bottom layer: errors, files, YAML, canonical bytes, package data; it imports no other pbem layer."""
