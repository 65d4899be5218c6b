"""A pinned requests' objects under data breakpoints (tests/dap/test_data_breakpoints.py): a Session's header dict (a
CaseInsensitiveDict) changed through update, and a prepared request's header written by requests' own auth code."""

import requests


def main():
    session = requests.Session()
    prepared = requests.PreparedRequest()
    prepared.prepare_headers({"Accept": "text/plain"})
    print("ready", flush=True)  # stop here
    session.headers.update({"User-Agent": "pairdbg-test/1.0"})  # writes the user agent through update
    prepared.prepare_auth(("ada", "pairdbg"))  # requests' auth code writes Authorization
    print("done", session.headers["User-Agent"], prepared.headers["Authorization"][:6], flush=True)


main()
