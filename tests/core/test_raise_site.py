"""The raise-site block of a stop report (pure logic): its text, and what an agent receives of a secret in it."""

from __future__ import annotations

from pairdbg.backends.actions import render
from pairdbg.backends.models import ExceptionInfo, Location, RaiseSite, SourceLine, StopReport, VariableView
from pairdbg.backends.redact import for_agent

SECRET = "hunter2-Secret-value"


def report(site: RaiseSite | None) -> StopReport:
    return StopReport(
        session_id="S1",
        stop_number=1,
        reason="exception",
        exception=ExceptionInfo(type="ValueError", message="bad login", raised_at="in auth.py:12 in check (…)"),
        location=Location(file="/app/main.py", line=5, function="login"),
        locals=[VariableView(name="user", type="str", value="'ada'")],
        locals_total=1,
        raise_site=site,
    )


SITE = RaiseSite(
    handle="@f0-2",
    function="check",
    file="/venv/site-packages/auth/core.py",
    line=12,
    package="auth",
    source=[
        SourceLine(line=11, text="if password != expected:"),
        SourceLine(line=12, text="    raise ValueError('bad login')", current=True),
    ],
    locals=[VariableView(name="password", type="str", value=f"'{SECRET}'")],
    locals_total=3,
)


def test_the_block_names_the_site_its_handle_lines_and_locals():
    text = render.stop_report(report(SITE))
    assert (
        "Raise site @f0-2, library code hidden by just_my_code (auth): core.py:12 in check  "
        "(/venv/site-packages/auth/core.py)" in text
    )
    assert ">   12|     raise ValueError('bad login')" in text and "    11| if password != expected:" in text
    assert "Locals at @f0-2 (1 of 3):" in text and "showing 1-1 of 3" in text
    assert "Raised in" not in text  # the block replaces the sentence


def test_without_a_site_the_sentence_stays():
    text = render.stop_report(report(None))
    assert "Raised in auth.py:12 in check" in text and "Raise site" not in text


def test_a_secret_in_the_raise_sites_locals_does_not_reach_an_agent():
    r = report(SITE)
    text, data = for_agent(render.stop_report(r), r.model_dump(mode="json"))
    assert SECRET not in text and SECRET not in str(data), text
    assert data["raise_site"]["handle"] == "@f0-2" and data["raise_site"]["locals"][0]["name"] == "password"


def test_a_data_stops_write_site_in_library_code():
    """A data breakpoint whose value library code wrote: the same block, named the write site; an agent gets its
    locals redacted like the raise site's."""
    r = StopReport(
        session_id="S1",
        stop_number=2,
        reason="data breakpoint",
        description="data breakpoint DB1: s.headers['A'] 'x' → 'y'",
        location=Location(file="/app/main.py", line=9, function="login"),
        write_site=SITE,
    )
    text = render.stop_report(r)
    assert "Write site @f0-2, library code hidden by just_my_code (auth): core.py:12 in check" in text, text
    assert "Raise site" not in text
    text, data = for_agent(text, r.model_dump(mode="json"))
    assert SECRET not in text and SECRET not in str(data), text
    assert data["write_site"]["handle"] == "@f0-2"
