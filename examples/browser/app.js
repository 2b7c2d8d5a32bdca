/* global document */
// The example page: signs in with the stand-in app server, then calls Rampart
// (inference and search) signing each request with a session key.
import { createSessionFetch, errorCode, signRequest } from '/sdk/browser/index.js';

const $ = (id) => document.getElementById(id);
const { rampartUrl } = await (await fetch('/config')).json();
let held; // the last key this page received
let rampartFetch;

function showKey(key) {
  held = key;
  const left = Math.round(key.expiresAt - Date.now() / 1000);
  $('key').textContent = `${key.keyId.split('.').slice(0, 3).join('.')}… (expires in ${left} s)`;
  $('key').dataset.keyId = key.keyId;
}

async function show(res) {
  const code = await errorCode(res);
  const body = await res.json();
  $('answer').dataset.status = String(res.status);
  $('answer').textContent =
    res.status === 200
      ? (body.choices?.[0]?.message?.content ?? JSON.stringify(body.items?.slice(0, 3) ?? body))
      : `${res.status} ${code}: ${body.detail ?? body.error?.message}`;
  $('answer').dataset.error = code;
}

const chat = () =>
  JSON.stringify({
    model: 'rampart-local-demo',
    messages: [{ role: 'user', content: $('question').value }],
  });

$('sign-in').addEventListener('submit', async (e) => {
  e.preventDefault();
  await fetch('/sign-in', { method: 'POST', body: $('user').value });
  rampartFetch = createSessionFetch({
    keyUrl: '/session-key',
    refreshBeforeMs: 500,
    onKey: showKey,
  });
  await rampartFetch.key();
  for (const b of ['ask', 'ask-held', 'search']) $(b).disabled = false;
});

$('ask').addEventListener('click', async () => {
  const body = chat();
  await show(
    await rampartFetch(`${rampartUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }),
  );
});

// No refresh: shows what Rampart answers once the key has expired.
$('ask-held').addEventListener('click', async () => {
  const url = `${rampartUrl}/v1/chat/completions`;
  const body = chat();
  const headers = await signRequest({ ...held, method: 'POST', url, body });
  await show(
    await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    }),
  );
});

$('search').addEventListener('click', async () => {
  await show(await rampartFetch(`${rampartUrl}/v1/search?q=paris`));
});
