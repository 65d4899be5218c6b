"""Reads a shop's opening schedule from TOML: one date in it is not a date, and tomli raises deep in its parser."""

import tomli

SCHEDULE = """
[shop]
name = "north"
opened = 2021-04-12

[holidays]
spring = 2024-04-01
summer = 2024-13-01
"""


def holidays(text):
    return tomli.loads(text)["holidays"]


print(holidays(SCHEDULE))
