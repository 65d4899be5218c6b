"""Parses a broken document: the JSONDecodeError is raised inside the stdlib's json decoder, not in this file."""

import json


def load(text):
    return json.loads(text)  # call into the library


print(load('{"ok": 1}'))
print(load("{broken"))
