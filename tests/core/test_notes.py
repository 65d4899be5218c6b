"""Notes between the person and the agents as core state: bounded per session (oldest dropped and counted),
announced, forgotten with their session, and carried once into the other side's next stop report."""

from __future__ import annotations

from pairdbg.backends.events import EventBus, SessionRemoved
from pairdbg.backends.notes import NoteAdded, NoteBook


def test_notes_are_bounded_per_session_and_the_dropped_are_counted():
    bus = EventBus()
    heard = bus.subscribe()
    book = NoteBook(bus, per_session=3)
    for i in range(5):
        book.add("S1", "human", f"n{i}")
    book.add("S2", "agent:a", "other")
    assert [n.text for n in book.of("S1")] == ["n2", "n3", "n4"]
    assert book.dropped == {"S1": 2}
    assert book.view()["S1"]["dropped"] == 2 and len(book.view()["S2"]["notes"]) == 1
    assert heard.queue.qsize() == 6 and isinstance(heard.queue.get_nowait(), NoteAdded)
    ids = [n.id for n in book.of("S1")] + [n.id for n in book.of("S2")]
    assert len(set(ids)) == len(ids)  # never repeated, across sessions too

    bus.publish(SessionRemoved("S1"))
    assert book.of("S1") == [] and "S1" not in book.dropped


def test_a_stop_report_carries_the_other_sides_unseen_notes_once():
    book = NoteBook()
    book.add("S1", "agent:a", "mine")
    book.add("S1", "human", "yours", file="/p/orders.py", line=14)
    data = {"session_id": "S1", "stop": {"stop_number": 2}}
    text = book.into_stop_report("agent:a", data)
    assert [n["text"] for n in data["notes"]] == ["yours"]  # not its own
    assert text is not None and "orders.py:14" in text and "yours" in text
    again = {"session_id": "S1", "stop": {"stop_number": 3}}
    assert book.into_stop_report("agent:a", again) is None and "notes" not in again
    assert book.into_stop_report("human", {"session_id": "S1"}) is None  # not a stop report
    assert [n.text for n in book.unseen("human", "S1")] == ["mine"]
