"""Loads settings written with a tab for indentation: PyYAML's scanner raises, inside the library, not in this file."""

import yaml

SETTINGS = "shop: north\nlimits:\n\tretries: 3\n"


def load_settings(text):
    return yaml.safe_load(text)  # call into the library


print(load_settings(SETTINGS))
