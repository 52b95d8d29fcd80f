// The web board's plumbing, loaded first: requests to the server's JSON API (counted on <body>
// as data-pending, for tests) and the small DOM helpers that the other scripts share.
// The scripts are plain (no modules, no build step) and share one global scope; index.html
// loads them in order: api.js, boards.js, thoughts.js, app.js.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

let inFlight = 0;        // requests not yet answered (shown as data-pending on <body>, for tests)

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  document.body.dataset.pending = String(++inFlight);
  try {
    const response = await fetch(path, options);
    const data = response.status === 204 ? null : await response.json().catch(() => null);
    if (!response.ok) {
      const detail = data && data.detail ? data.detail : `${response.status} ${response.statusText}`;
      throw new Error(detail);
    }
    return data;
  } finally {
    document.body.dataset.pending = String(--inFlight);
  }
}

function showMessage(text) {
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
}

function cap(t) {
  return t ? t.charAt(0).toUpperCase() + t.slice(1) : "";
}

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
