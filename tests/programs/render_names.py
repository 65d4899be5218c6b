"""Renders a greeting with Jinja2 and loads settings with PyYAML (pinned in the test venv)."""

import jinja2
import yaml


class Person:
    def __init__(self, first, last):
        self.first = first
        self.last = last

    def display_name(self):
        name = f"{self.last}, {self.first}"
        return name  # DISPLAY


def render(people):
    template = jinja2.Template("{% for p in people %}{{ p.display_name() }};{% endfor %}")
    return template.render(people=people)  # RENDER


def main():
    settings = yaml.safe_load("greeting: hello\ncount: 2\n")  # LOAD
    people = [Person("Ada", "Lovelace"), Person("Alan", "Turing")][: settings["count"]]
    print(settings["greeting"], render(people))


main()
