"""The React Native listener's own redaction rules, on top of the shared walk (backends/redact): an MMKV entry
`{key: "authToken", value: …}`, an RFC 6902 patch op writing to `/auth/token`, a Redux action `auth/setPassword`
whose payload is the secret, and a value read at a path through a secret-named key."""

from __future__ import annotations

from typing import Any

from ..redact import REDACTED, Redactor, trivial


class RnRedactor(Redactor):
    def hidden(self, key: Any, value: Any, parent: dict[str, Any]) -> bool:
        if super().hidden(key, value, parent):
            return True
        if trivial(value):
            return False
        if key == "value" and isinstance(parent.get("key"), str) and self.sensitive_key(parent["key"]):
            return True  # an MMKV-style {key: "authToken", value: …}
        if key == "value" and self._sensitive_patch_path(parent):
            return True  # an RFC 6902 op writing to /auth/token: the key is only in the path
        return key == "payload" and self._sensitive_action(parent)  # {"type": "auth/setPassword", "payload": …}

    def _sensitive_patch_path(self, op: dict[str, Any]) -> bool:
        path = op.get("path")
        if not isinstance(op.get("op"), str) or not isinstance(path, str):
            return False
        return any(self.sensitive_key(part.replace("~1", "/").replace("~0", "~")) for part in path.split("/") if part)

    def _sensitive_action(self, action: dict[str, Any]) -> bool:
        kind = action.get("type")
        if not isinstance(kind, str):
            return False
        verb = kind.rsplit("/", 1)[-1]
        return self.sensitive_key(verb) or any(
            self.sensitive_key(verb[i:]) for i in range(1, len(verb)) if verb[i].isupper()
        )

    def redact_at(self, parts: list[str | int], value: Any) -> Any:
        """A value found at `parts`: a secret-named key anywhere on the path hides it whole."""
        named = any(isinstance(p, str) and self.sensitive_key(p) for p in parts)
        pair = len(parts) >= 2 and parts[-1] == "value" and isinstance(parts[-2], str) and self.sensitive_key(parts[-2])
        if (named or pair) and not trivial(value):
            self.count += 1
            return REDACTED
        return self.redact(value)
