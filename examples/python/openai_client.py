"""The official ``openai`` Python package through Rampart, every request signed by RampartAuth.

    pip install openai httpx          # not possible on Rampart's CI machine: see below
    RAMPART_APP_ID=demo-app RAMPART_APP_SECRET=... python3 examples/python/openai_client.py

The only changes from a plain OpenAI client are ``base_url`` (Rampart's ``/v1``)
and an ``http_client`` whose ``auth`` signs each request. The package sends
every request -- its own retries on 429 and 5xx included -- through
``http_client.send``, so httpx runs ``RampartAuth.auth_flow`` each time and
every attempt carries a fresh timestamp and nonce (never ``replayed_nonce``).
The package's errors carry Rampart's stable code: ``err.code`` is
``rate_limited``, ``bad_signature``, ``validation_failed`` ...

UNTESTED HERE: Rampart's CI machine cannot reach PyPI and Debian does not
package ``openai``, so this file is not run in CI. What CI does run is
``check_signing.py``: the same RampartAuth against a started app through
plain httpx (test/e2e/openai-python.e2e.spec.ts).
"""

from __future__ import annotations

import os

import httpx
import openai
from openai import OpenAI

from rampart_auth import RampartAuth

base_url = os.environ.get("RAMPART_URL", "http://localhost:3000")
auth = RampartAuth(
    app_id=os.environ["RAMPART_APP_ID"],
    secret=os.environ["RAMPART_APP_SECRET"],
    key_id=os.environ.get("RAMPART_KEY_ID"),
)
client = OpenAI(
    base_url=f"{base_url}/v1",
    api_key="unused-by-rampart",  # the package wants one; Rampart reads the signature instead
    http_client=httpx.Client(auth=auth, timeout=60),
)

completion = client.chat.completions.create(
    model="gpt-4o-mini",
    messages=[{"role": "user", "content": "I love the new park in Lisbon!"}],
)
print(completion.choices[0].message.content)

stream = client.chat.completions.create(
    model="gpt-4o-mini",
    messages=[{"role": "user", "content": "The service was slow and awful."}],
    stream=True,
    stream_options={"include_usage": True},
)
for chunk in stream:
    if chunk.choices:
        print(chunk.choices[0].delta.content or "", end="", flush=True)
    elif chunk.usage:
        print(f"\n[usage: {chunk.usage.total_tokens} tokens]")

print([m.id for m in client.models.list()])

try:
    client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "hi"}],
        max_tokens=100_000,
    )
except openai.BadRequestError as err:
    print(err.status_code, err.code, err.param)  # 400 validation_failed max_tokens
except openai.RateLimitError as err:  # after the package's own retries (Retry-After honoured)
    print(err.status_code, err.code, err.response.headers.get("retry-after"))
