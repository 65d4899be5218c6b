"""The per-actor Focus kept by the Hub: what each actor looks at and the newest stop each was shown."""

from __future__ import annotations

from pairdbg.backends.focus import TOP_FRAME, Focuses
from pairdbg.backends.hub import Hub
from pairdbg.backends.models import Location, StopReport


def report(session_id: str, number: int, thread: int = 1) -> StopReport:
    return StopReport(session_id=session_id, stop_number=number, reason="step", location=Location(), thread_id=thread)


def test_each_actor_has_its_own_focus_and_seen_stops():
    focuses = Focuses()
    person, agent = focuses.of("human"), focuses.of("agent:a")
    assert focuses.of("human") is person and person is not agent
    assert person.session_id is None and person.frame == TOP_FRAME

    person.select("S1")
    person.frame = "@f2"
    person.stopped(report("S1", 3, thread=7))
    assert (person.session_id, person.thread_id, person.frame) == ("S1", 7, TOP_FRAME)

    agent.saw(report("S1", 2))
    agent.saw(report("S1", 1))  # an older reply never moves it back
    agent.saw(None)  # no stop: nothing shown
    assert agent.seen_stop("S1") == 2 and agent.seen_stop("S2") is None
    assert person.seen_stop("S1") is None  # what one actor saw says nothing of the other

    person.select("S2")
    assert (person.session_id, person.thread_id, person.frame) == ("S2", None, TOP_FRAME)


def test_the_hub_keeps_the_focus():
    hub = Hub()
    hub.focus.of("human").select("S1")
    assert hub.focus.of("human").session_id == "S1"
    assert dict(hub.focus).keys() == {"human"}


def test_a_change_of_focus_is_announced_once_and_unknown_fields_are_refused():
    from pairdbg.backends.focus import FocusChanged, VariableLook

    hub = Hub()
    heard = hub.bus.subscribe()
    person = hub.focus.of("human")
    assert person.look(file="/a.py", line=3) is True
    assert person.look(file="/a.py", line=3) is False  # nothing changed: nothing announced
    person.look(variable=VariableLook("big", "x" * 1000))
    assert len(person.variable.value) <= 300  # a huge value is cut, not kept whole
    events = [heard.queue.get_nowait() for _ in range(heard.queue.qsize())]
    assert [type(e) for e in events] == [FocusChanged, FocusChanged]
    import pytest

    with pytest.raises(TypeError):
        person.look(cursor=4)


def test_the_person_attaches_and_leaves():
    from pairdbg.backends.focus import person_view

    hub = Hub()
    view = person_view(hub)
    assert view["attached"] is False and any("no person" in u for u in view["unknown"])
    hub.focus.attach("human")
    hub.focus.of("human").look(expression="total")
    view = person_view(hub)
    assert view["attached"] is True and view["expression"] == "total"
    assert "no session is selected" in view["unknown"]
    hub.focus.detach("human")
    assert person_view(hub)["attached"] is False
