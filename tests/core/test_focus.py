"""The per-actor Focus kept by the Hub: what each actor looks at and the newest stop each was shown."""

from __future__ import annotations

from pairdbg.backends.focus import TOP_FRAME, FocusChanged, Focuses, person_view
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


def test_an_agents_reads_move_its_focus_and_only_its_own():
    hub = Hub()
    heard: list[str] = []
    hub.bus.add_listener(lambda e: heard.append(e.actor) if isinstance(e, FocusChanged) else None)
    assert hub.focus.agent_read("human", "S1", 3, frame="@f1") is False  # the person's panes set their own
    assert hub.focus.of("human").frame == TOP_FRAME and heard == []

    assert hub.focus.agent_read("agent:a", "S1", 3, frame="@f1", file="/p/x.py", line=18)
    a = hub.focus.of("agent:a")
    assert (a.session_id, a.frame, a.line, a.read_at_stop) == ("S1", "@f1", 18, 3) and heard == ["agent:a"]
    first = a.changed_at
    hub.focus.agent_read("agent:a", "S1", 3, frame="@f1", file="/p/x.py", line=18)  # the same read again
    assert heard == ["agent:a", "agent:a"] and a.changed_at >= first  # fresh again
    hub.focus.agent_read("agent:b", None, None, file="/p/y.py", line=2)  # a file outside a session
    assert hub.focus.of("agent:b").session_id is None
    assert [actor for actor, _ in hub.focus.agents()] == ["agent:b", "agent:a"]  # the latest first


def test_the_person_hands_a_copy_of_their_focus_over():
    hub = Hub()
    assert person_view(hub)["handed"] is None
    person = hub.focus.of("human")
    person.look(file="/p/x.py", line=7, expression="qty * 2")
    handed = hub.focus.hand_over(None)
    person.look(line=9)  # later moves do not change what was handed
    view = person_view(hub)["handed"]
    assert handed.line == 7 and view["cursor"] == {"file": "/p/x.py", "line": 7}
    assert view["expression"] == "qty * 2" and view["current"] is False and "frame" not in view
