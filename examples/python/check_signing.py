"""Checks RampartAuth against a running Rampart with plain httpx (no openai package needed).

    RAMPART_APP_ID=demo-app RAMPART_APP_SECRET=... \\
        python3 examples/python/check_signing.py http://localhost:3000 \\
        [--fixture test/fixtures/signature-worked-example.json]

Runs, through the OpenAI-compatible routes: a completion, a stream with a usage
chunk, the model list, and a request signed with a wrong secret (must be 401).
Prints one JSON object with what it saw and exits 0 when every check passed.
CI runs it against a started app (test/e2e/openai-python.e2e.spec.ts).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List

import httpx

from rampart_auth import RampartAuth, signature, string_to_sign

CHAT = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "I love Lisbon!"}]}


def worked_example(path: str) -> bool:
    """The signature of each case of docs/signature.md's worked example, computed here."""
    with open(path, encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    for c in cases:
        i = c["inputs"]
        text = string_to_sign(
            i["appId"], i["timestamp"], i["nonce"], i["method"], i["target"], i["body"].encode()
        )
        if text != c["expected"]["stringToSign"] or signature(c["secret"], text) != c[
            "expected"
        ]["signature"]:
            return False
    return True


def completion(client: httpx.Client) -> Dict[str, Any]:
    r = client.post("/v1/chat/completions", json=CHAT)
    body = r.json()
    ok = r.status_code == 200 and body.get("object") == "chat.completion"
    content = body["choices"][0]["message"]["content"] if ok else None
    return {"status": r.status_code, "model": body.get("model"), "content": content}


def stream(client: httpx.Client) -> Dict[str, Any]:
    payload = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}
    events: List[str] = []
    with client.stream("POST", "/v1/chat/completions", json=payload) as r:
        for line in r.iter_lines():
            if line.startswith("data:"):
                events.append(line[5:].strip())
    chunks = [json.loads(e) for e in events if e != "[DONE]"]
    text = "".join(
        (c["choices"][0]["delta"].get("content") or "") for c in chunks if c.get("choices")
    )
    usage = chunks[-1].get("usage") if chunks else None
    return {
        "status": r.status_code,
        "content_type": r.headers.get("content-type"),
        "chunks": len(chunks),
        "content": text,
        "done": bool(events) and events[-1] == "[DONE]",
        "usage": usage,
    }


def models(client: httpx.Client) -> Dict[str, Any]:
    r = client.get("/v1/models")
    return {"status": r.status_code, "ids": [m["id"] for m in r.json().get("data", [])]}


def unauthorized(base_url: str, app_id: str) -> Dict[str, Any]:
    wrong = RampartAuth(app_id, "not-the-secret-" + "x" * 32)
    with httpx.Client(base_url=base_url, auth=wrong, timeout=30) as client:
        r = client.post("/v1/chat/completions", json=CHAT)
    error = r.json().get("error") or {}
    return {"status": r.status_code, "code": error.get("code"), "type": error.get("type")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_url")
    parser.add_argument("--fixture", help="signature-worked-example.json to check first")
    args = parser.parse_args()
    app_id = os.environ["RAMPART_APP_ID"]
    auth = RampartAuth(app_id, os.environ["RAMPART_APP_SECRET"], os.environ.get("RAMPART_KEY_ID"))

    nonces: List[str] = []
    hooks = {"request": [lambda request: nonces.append(request.headers["X-Nonce"])]}
    result: Dict[str, Any] = {"httpx": httpx.__version__}
    if args.fixture:
        result["worked_example"] = worked_example(args.fixture)
    with httpx.Client(base_url=args.base_url, auth=auth, event_hooks=hooks, timeout=30) as client:
        result["completion"] = completion(client)
        result["stream"] = stream(client)
        result["models"] = models(client)
    result["unauthorized"] = unauthorized(args.base_url, app_id)
    result["fresh_nonces"] = len(nonces) == len(set(nonces)) == 3

    passed = (
        result.get("worked_example", True)
        and result["completion"]["status"] == 200
        and result["stream"]["done"]
        and result["stream"]["usage"] is not None
        and result["models"]["status"] == 200
        and result["unauthorized"] == {
            "status": 401,
            "code": "bad_signature",
            "type": "authentication_error",
        }
        and result["fresh_nonces"]
    )
    result["passed"] = bool(passed)
    print(json.dumps(result))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
