"""Redaction cost per get_local_variables reply of 25 locals (the budget: 0.5 ms), as the registry pays it for an
agent (AgentPolicy.redact_reply on the reply's text and data, rendered the way the action renders them).

Cases: 25 ordinary locals (the common case); a mix with secret-named values, previews holding secret keys and
credential shapes; the mix in a session that already remembers 50 or 1000 (the most) secrets; and the mix on a
session's first reply (a secret first seen is hidden in the rest of the reply too). Prints the median and the 95th
percentile per reply in ms of this thread's CPU time (the machine may be shared; wall time would count the waits
of other processes); exits 1 when a median is over budget.

Run: .venv/bin/python scripts/bench_redact.py [replies per case]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pairdbg.backends.actions.render import variables_block
from pairdbg.backends.events import EventBus
from pairdbg.backends.models import VariableView
from pairdbg.backends.policy import AgentPolicy

BUDGET_MS = 0.5
SECRET = "Zq8#vR2!kLm9xT-4"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl"


def ordinary_locals() -> list[VariableView]:
    values = [
        ("token_count", "int", "3"),
        ("tokens", "list", "['SELECT', 'FROM', 'WHERE', 'users']"),
        ("pwd", "str", "'/home/ada/projects/shop'"),
        ("sha", "str", "'a4c123b1612dd272d1371c17149d439536b3216f'"),
        ("request_id", "str", "'72c5e5b7-7518-b101-8f13-4a069e3fab8c'"),
        ("path", "str", "'/home/ada/tokens/password_reset.py'"),
        ("query", "str", "'UPDATE users SET password = ? WHERE id = ?'"),
        ("order", "dict", "{'id': 42, 'items': [{'sku': 'A-1', 'qty': 2}, {'sku': 'B-7', 'qty': 1}], 'total': 31.5}"),
        ("users", "list", "[{'name': 'ada', 'email': 'ada@example.com'}, {'name': 'bob', 'email': 'bob@example.com'}]"),
        ("self", "Shop", "<shop.Shop object at 0x7f3a2c1d9e50>"),
        ("kind", "type", "<class 'dict'>"),
        ("callback", "function", "<function handle at 0x7f3a2c1e0040>"),
        ("n", "int", "17"),
        ("ratio", "float", "0.3333333333333333"),
        ("flag", "bool", "True"),
        ("missing", "NoneType", "None"),
        ("name", "str", "'Ada Lovelace'"),
        ("url", "str", "'https://example.com/api/orders?page=2&sort=desc'"),
        ("lines", "list", "['first line of the file', 'second line', 'third line with more words in it', …]"),
        ("counts", "Counter", "Counter({'a': 3, 'b': 2, 'c': 1})"),
        ("matrix", "list", "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]"),
        ("env_name", "str", "'production'"),
        ("started", "datetime", "datetime.datetime(2026, 11, 26, 1, 30, 0)"),
        ("i", "int", "0"),
        ("msg", "str", "'the token expired yesterday, ask for a new one'"),
    ]
    return [
        VariableView(name=n, type=t, value=v, handle=f"@v{i}" if t in ("list", "dict") else None)
        for i, (n, t, v) in enumerate(values)
    ]


def mixed_locals() -> list[VariableView]:
    views = ordinary_locals()[:15]
    views += [
        VariableView(name="password", type="str", value=f"'{SECRET}'"),
        VariableView(name="api_key", type="str", value="'sk_live_4eC39HqLyjWDarjtT1zdp7dc'"),
        VariableView(name="auth_token", type="str", value="'0123456789abcdef0123456789abcdef01234567'"),
        VariableView(name="pin", type="int", value="4821"),
        VariableView(
            name="config",
            type="dict",
            value=f"{{'user': 'ada', 'password': '{SECRET}', 'region': 'eu'}}",
            handle="@v30",
        ),
        VariableView(
            name="opts",
            type="OrderedDict",
            value=f"OrderedDict([('token', '{SECRET}'), ('user', 'ada')])",
            handle="@v31",
        ),
        VariableView(
            name="headers",
            type="Map",
            value='Map(2) {"authorization" => "Bearer ' + JWT + '", "accept" => "json"}',
            handle="@v32",
        ),
        VariableView(name="note", type="str", value="'key AKIAIOSFODNN7EXAMPLE in use'"),
        VariableView(name="dsn", type="str", value="'postgres://app:hunter2-Secret@db.internal:5432/shop'"),
        VariableView(name="credentials", type="Object", value="Object", handle="@v33"),
    ]
    return views


def reply(views: list[VariableView]) -> tuple[str, dict]:
    text = f"Locals of @f0 ({len(views)}):\n" + "\n".join(variables_block(views, len(views)))
    data = {
        "session_id": "S1",
        "frame": "@f0",
        "variables": [v.model_dump(mode="json", exclude_none=True) for v in views],
        "total": len(views),
    }
    return text, data


def measure(name: str, views: list[VariableView], n: int, *, remembered: int = 0, fresh: bool = False) -> float:
    text, data = reply(views)
    policy = AgentPolicy(None, EventBus())
    for k in range(remembered):
        policy.redact_reply("S1", None, "", {"name": "token", "value": f"'Tk{k:04d}-qZ8x!{k}'"})
    times = []
    for _ in range(n):
        if fresh:
            policy = AgentPolicy(None, EventBus())
        start = time.thread_time_ns()
        policy.redact_reply("S1", None, text, data)
        times.append((time.thread_time_ns() - start) / 1e6)
    times.sort()
    median, p95 = statistics.median(times), times[int(len(times) * 0.95) - 1]
    verdict = "ok" if median <= BUDGET_MS else "OVER BUDGET"
    print(f"  {name:<44} {median:7.3f}   p95 {p95:7.3f}   (n={n})  {verdict}")
    return median


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(f"redaction per get_local_variables reply of 25 locals, ms (budget {BUDGET_MS} ms, median):")
    medians = [
        measure("25 ordinary locals", ordinary_locals(), n),
        measure("25 locals, 10 with secrets", mixed_locals(), n),
        measure("the same, 50 secrets remembered", mixed_locals(), n, remembered=50),
        measure("the same, 1000 secrets remembered (the most)", mixed_locals(), n, remembered=1000),
        measure("the same, a session's first reply", mixed_locals(), n, fresh=True),
    ]
    return 0 if max(medians) <= BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
