// The API as the pages use it: JSON in and out, problem documents as errors, and the seat
// tokens this tab holds. A token lives in sessionStorage only; it never goes into a URL
// the browser sends.

export class Problem extends Error {
  constructor(status, doc, retryAfter) {
    super(doc?.detail || doc?.title || `the server answered ${status}`);
    this.status = status;
    this.code = doc?.code || null;
    this.retryAfter = retryAfter ? Number(retryAfter) : null;
    this.fields = flatten(doc?.errors || {});
  }
}

// A problem's field errors as [["seats.0.name", "what is wrong"], ...].
function flatten(errors, prefix = "") {
  return Object.entries(errors).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (Array.isArray(value)) return value.map((text) => [path, String(text)]);
    if (value && typeof value === "object") return flatten(value, path);
    return [[path, String(value)]];
  });
}

export function newKey() {
  return crypto.randomUUID();
}

export async function call(method, path, { token = null, body, headers = {} } = {}) {
  const sent = { Accept: "application/json", ...headers };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method, headers: sent, cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new Problem(0, { detail: "the server cannot be reached; trying again helps" });
  }
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : null;
  if (!response.ok) throw new Problem(response.status, data, response.headers.get("Retry-After"));
  return data;
}

export const matchPath = (id, rest = "") => `/v1/matches/${encodeURIComponent(id)}${rest}`;
export const tablePath = (id) => `/m/${encodeURIComponent(id)}`;

const tokenKey = (id) => `cardems:token:${id}`;

export const tokens = {
  get: (id) => sessionStorage.getItem(tokenKey(id)),
  set: (id, token) => sessionStorage.setItem(tokenKey(id), token),
  forget: (id) => sessionStorage.removeItem(tokenKey(id)),
};

// A seat's link: the token rides in the fragment, which the browser keeps to itself.
export function seatLink(id, token) {
  return `${location.origin}${tablePath(id)}#token=${encodeURIComponent(token)}`;
}
