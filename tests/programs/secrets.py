"""Holds planted credentials for the redaction tests; every value comes from the environment the test sets."""

import os


def main():
    password = os.environ["PLANT_PASSWORD"]
    aws_key = os.environ["PLANT_AWS"]
    token = os.environ["TOKEN"]
    config = {"user": "ada", "password": password, "note": "login with password=" + password}
    credentials = {"login": "ada", "code": password}
    print("Authorization: Bearer " + os.environ["PLANT_JWT"], flush=True)
    print("the password is " + password, flush=True)
    print("ready", aws_key[:0], config["user"], token[:0], len(credentials), flush=True)  # stop here


if __name__ == "__main__":
    main()
