"""Limits and report caps, as one typed settings model."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Limits(BaseModel):
    max_sessions: int = Field(10, description="live sessions at once; the next start fails with LIMIT_EXCEEDED")
    max_breakpoints: int = Field(100, description="breakpoints per session")
    max_expression: int = Field(10_000, description="characters in an expression, condition or log message")
    max_path: int = Field(4096, description="characters in a path argument (file, program, cwd, workspace)")
    max_argument_items: int = Field(1000, description="entries in one list or map argument (args, env, breakpoints)")
    max_watches: int = Field(20, description="watch expressions per session")
    output_capacity: int = Field(5000, ge=1, description="output entries kept per session (oldest dropped first)")
    output_bytes: int = Field(
        4 * 1024 * 1024, ge=64 * 1024, description="bytes of output kept per session (oldest dropped first)"
    )
    ended_output_bytes: int = Field(
        16 * 1024 * 1024, ge=0, description="bytes of output kept across all ended sessions (oldest sessions' first)"
    )
    value_chars: int = Field(120, description="characters of a value shown before it is cut")
    report_locals: int = Field(25, description="locals shown in a stop report")
    report_frames: int = Field(8, description="frames shown in a stop report")
    report_context: int = Field(3, description="source lines either side of the current line in a stop report")
    report_output_lines: int = Field(10, description="output lines since the last stop shown in a stop report")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="inspector hosts beyond loopback that attach/connect_debugger may reach (remote debugging)",
    )
    default_wait_s: float = Field(10.0, description="how long step/continue wait for the next stop by default")
    max_notes: int = Field(50, ge=1, description="notes kept per session (the oldest dropped first)")
    note_chars: int = Field(2000, ge=1, description="characters in one note")
